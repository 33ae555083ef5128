import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { ConnectionError } from '../../client/errors'
import { ErrorCode } from '../../protocol/error-codes'
import { KafkaTsError } from '../../protocol/errors'
import { meaningOfCode, meaningOfFailure } from '../../producer/outcomes'

// What a Produce answer means for its batch decides invariant 1 (an ambiguous batch is
// never failed or resent under a new sequence): the table below is the contract.
describe('producer outcomes: what an answer means', () => {
  test('a Produce error code', () => {
    const cases: Array<[number, boolean, string]> = [
      [0, false, 'written'],
      [ErrorCode.DUPLICATE_SEQUENCE_NUMBER, false, 'written'],
      [ErrorCode.UNKNOWN_SERVER_ERROR, false, 'ambiguous'],
      [ErrorCode.REQUEST_TIMED_OUT, false, 'ambiguous'],
      [ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, false, 'ambiguous'],
      [ErrorCode.NOT_LEADER_OR_FOLLOWER, false, 'retry'],
      [ErrorCode.NOT_ENOUGH_REPLICAS, false, 'retry'],
      [ErrorCode.CONCURRENT_TRANSACTIONS, true, 'retry'],
      [ErrorCode.INVALID_PRODUCER_EPOCH, true, 'fenced'],
      [ErrorCode.PRODUCER_FENCED, true, 'fenced'],
      [ErrorCode.INVALID_PRODUCER_EPOCH, false, 'sequence'],
      [ErrorCode.PRODUCER_FENCED, false, 'failed'],
      [ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 'sequence'],
      [ErrorCode.UNKNOWN_PRODUCER_ID, true, 'sequence'],
      [ErrorCode.MESSAGE_TOO_LARGE, false, 'too-large'],
      // Retriable in Kafka's table, but neither known unwritten nor possibly written here.
      [ErrorCode.CORRUPT_MESSAGE, false, 'failed'],
      [ErrorCode.TOPIC_AUTHORIZATION_FAILED, false, 'failed']
    ]
    for (const [code, transactional, meaning] of cases) {
      assert.equal(meaningOfCode(code, transactional), meaning, `code ${code}, transactional ${String(transactional)}`)
    }
  })

  test('a request without a response', () => {
    const died = new ConnectionError('broker 1', 'closed', { written: true })
    const refused = new KafkaTsError('INVALID_CONFIG', 'not retriable')
    const retriable = new KafkaTsError('INVALID_CONFIG', 'retriable', { retriable: true })
    // Written: may be in the log, whatever the error.
    assert.equal(meaningOfFailure(died, true, false), 'ambiguous')
    assert.equal(meaningOfFailure(refused, true, false), 'ambiguous')
    // Not written: a non-retriable error fails the batch, unless an earlier attempt was ambiguous.
    assert.equal(meaningOfFailure(refused, false, false), 'failed')
    assert.equal(meaningOfFailure(refused, false, true), 'unsent')
    assert.equal(meaningOfFailure(retriable, false, false), 'unsent')
    assert.equal(meaningOfFailure(died, false, false), 'unsent')
    assert.equal(meaningOfFailure(new Error('plain'), false, false), 'unsent')
  })
})
