import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { dropAbortedAndControl, dropControl } from '../../client/read-committed'
import { controlRecordInput, decodeRecordBatchesSync, encodeRecordBatchSync, scanRecordBatches } from '../../protocol/record-batch'

/**
 * A log of two transactions of producer 7 (the first aborted, the second committed) and
 * a plain batch: data 0-1 (aborted), marker 2, data 3 (plain), data 4 (committed), marker 5.
 */
function log (): Buffer {
  const data = (baseOffset: bigint, transactional: boolean): Buffer => encodeRecordBatchSync({ records: [{ value: Buffer.from(`v${baseOffset}`) }], baseOffset, transactional, producerId: transactional ? 7n : -1n, producerEpoch: 0 })
  const marker = (baseOffset: bigint, type: 'abort' | 'commit'): Buffer => encodeRecordBatchSync({ records: [controlRecordInput(type, 1)], control: true, transactional: true, producerId: 7n, producerEpoch: 0, baseOffset })
  const aborted = encodeRecordBatchSync({ records: [{ value: Buffer.from('v0') }, { value: Buffer.from('v1') }], transactional: true, producerId: 7n, producerEpoch: 0 })
  return Buffer.concat([aborted, marker(2n, 'abort'), data(3n, false), data(4n, true), marker(5n, 'commit')])
}

describe('read_committed filters', () => {
  test('decoded and scanned batches keep the same batches: the aborted transaction and every marker go', () => {
    const aborted = [{ producerId: 7n, firstOffset: 0n }]
    const decoded = dropAbortedAndControl(decodeRecordBatchesSync(log()), aborted)
    const scanned = dropAbortedAndControl(scanRecordBatches(log()), aborted)
    assert.deepEqual(decoded.map(b => b.baseOffset), [3n, 4n])
    assert.deepEqual(scanned.map(s => s.batch.baseOffset), [3n, 4n])
    // The scanned ones come back as they were: still to decode, their record bytes with them.
    assert.ok(scanned.every(s => !s.decoded && s.data.length > 0))
  })

  test('read_uncommitted drops the markers only, of decoded and scanned batches alike', () => {
    assert.deepEqual(dropControl(decodeRecordBatchesSync(log())).map(b => b.baseOffset), [0n, 3n, 4n])
    assert.deepEqual(dropControl(scanRecordBatches(log())).map(s => s.batch.baseOffset), [0n, 3n, 4n])
  })

  test('nothing to drop: the same array back', () => {
    const scanned = scanRecordBatches(log()).filter(s => !s.batch.isControl)
    assert.equal(dropControl(scanned), scanned)
    assert.equal(dropAbortedAndControl(scanned, null), scanned)
  })
})
