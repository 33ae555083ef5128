// BatchBuffers: the reused encode buffers of uncompressed batches. What the producer
// relies on: a buffer given back is handed out again (the same memory), only for batches
// of about the pooled size, and nothing else is kept.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BatchBuffers } from '../../producer/batch-buffers'

const SIZE = 128 * 1024

test('a buffer given back is the one the next batch of about the pooled size is encoded into', () => {
  const buffers = new BatchBuffers(2, SIZE)
  const writer = buffers.take(SIZE - 100)!
  assert.equal(writer.buffer.length, SIZE)
  assert.equal(writer.offset, 0)
  writer.raw(Buffer.from('batch one'))
  const encoded = writer.buffer.subarray(0, writer.offset)
  buffers.give(encoded)
  assert.equal(buffers.idle, 1)
  const again = buffers.take(SIZE / 2)!
  assert.equal(again.buffer.buffer, encoded.buffer, 'the same memory')
  assert.equal(again.offset, 0)
  assert.equal(buffers.idle, 0)
})

test('batches under half the pooled size or over it get no pooled buffer; buffers of another size or views not at their start are not kept; at most maxBuffers idle', () => {
  const buffers = new BatchBuffers(2, SIZE)
  assert.equal(buffers.take(SIZE / 2 - 1), undefined)
  assert.equal(buffers.take(SIZE + 1), undefined)
  buffers.give(Buffer.allocUnsafeSlow(SIZE * 2))
  buffers.give(Buffer.allocUnsafeSlow(SIZE).subarray(1))
  buffers.give(Buffer.from('small'))
  assert.equal(buffers.idle, 0)
  for (let i = 0; i < 3; i++) buffers.give(buffers.take(SIZE)!.buffer)
  assert.equal(buffers.idle, 1, 'a buffer taken and given back is kept once')
  const taken = [buffers.take(SIZE)!, buffers.take(SIZE)!, buffers.take(SIZE)!]
  for (const writer of taken) buffers.give(writer.buffer)
  assert.equal(buffers.idle, 2)
})
