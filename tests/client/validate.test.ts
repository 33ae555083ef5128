// The option checks every public constructor uses: the message names the option, shows the
// value and says what is allowed, and the error kind tells a wrong type from a wrong range.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkDuration, checkInteger, checkKnownKeys, checkOneOf, checkString, closestName, describeValue } from '../../client/validate'

test('a string where an integer belongs is a TypeError naming the option and the value', () => {
  assert.throws(() => checkInteger('producer option', 'lingerMs', '5', { min: 0 }),
    (error: unknown) => error instanceof TypeError && error.message === 'producer option lingerMs: expected an integer ≥ 0, got "5" (a string)')
})

test('an integer out of range is a RangeError with the bounds', () => {
  assert.throws(() => checkInteger('producer option', 'batchMaxBytes', 0, { min: 1, max: 10 }),
    (error: unknown) => error instanceof RangeError && /expected an integer from 1 to 10, got 0 \(a number\)/.test(error.message))
  assert.throws(() => checkDuration('client option', 'requestTimeoutMs', 2 ** 31), RangeError)
  assert.throws(() => checkInteger('x', 'n', 1.5), TypeError)
  assert.throws(() => checkInteger('x', 'n', NaN), TypeError)
  checkInteger('x', 'n', undefined, { min: 1 })
})

test('enums list what is allowed', () => {
  assert.throws(() => checkOneOf('producer option', 'compression', 'brotli', ['none', 'gzip']),
    (error: unknown) => error instanceof RangeError && /one of 'none', 'gzip', got "brotli"/.test(error.message))
  assert.throws(() => checkOneOf('producer option', 'acks', 2, ['all', -1, 0, 1]), RangeError)
  assert.throws(() => checkString('consumer option', 'groupId', ''), RangeError)
})

test('an unknown option is refused with the likely intended name', () => {
  assert.throws(() => checkKnownKeys('producer option', { linger: 5 }, ['lingerMs', 'acks']),
    (error: unknown) => error instanceof TypeError && /linger is not an option; did you mean lingerMs\?/.test(error.message))
  checkKnownKeys('producer option', { lingerMs: 5, other: undefined }, ['lingerMs'])
})

test('the name meant: the same but for case and separators, a prefix, or a typo or two away; nothing for a stranger', () => {
  const keys = ['sessionTimeoutMs', 'maxBytes', 'maxPartitionBytes', 'isolation', 'lingerMs']
  assert.equal(closestName('sesionTimeoutMs', keys), 'sessionTimeoutMs')
  assert.equal(closestName('maxBytez', keys), 'maxBytes')
  assert.equal(closestName('maxbytes', keys), 'maxBytes')
  assert.equal(closestName('linger', keys), 'lingerMs')
  assert.equal(closestName('isolaiton', keys), 'isolation')
  assert.equal(closestName('read-committed', ['read_uncommitted', 'read_committed']), 'read_committed')
  assert.equal(closestName('brotli', ['none', 'gzip']), undefined)
  assert.equal(closestName('timeout', keys), undefined)
  assert.throws(() => checkOneOf('consumer option', 'isolation', 'READ_COMMITTED', ['read_uncommitted', 'read_committed']),
    (error: unknown) => error instanceof RangeError && error.message === 'consumer option isolation: expected one of \'read_uncommitted\', \'read_committed\', got "READ_COMMITTED" (a string); did you mean \'read_committed\'?')
})

test('values are described so the user sees what they passed', () => {
  assert.equal(describeValue(Buffer.alloc(3)), 'a Buffer of 3 bytes')
  assert.equal(describeValue({ a: 1 }), 'an object')
  assert.equal(describeValue(new Map()), 'a Map')
  assert.equal(describeValue(7n), '7n (a bigint)')
})
