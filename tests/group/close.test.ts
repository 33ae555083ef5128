// close() has one shape on every closeable class: `close({ force })`, and a `closed` getter
// that is true from the call on (while the close still finishes). A group member's force
// skips waiting for run() handlers still out: what was processed by then is committed, the
// rest is not, and the partition goes to the next member at once.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Producer, ShareConsumer } from '../../index'
import { FakeCluster } from '../../testing/index'
import { gate, protocols, withHarness } from './support'
import { waitFor } from '../support/wait'

for (const protocol of protocols) {
  describe(`close({ force }) of a group member (${protocol} protocol)`, () => {
    test('force: close() does not wait for a handler still out; what was processed before it is committed, the next member starts there', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        // Twenty seconds of rebalance timeout: without force, close() would wait that long for the stuck handler.
        const a = await h.member('a', protocol, { sessionTimeoutMs: 20_000, rebalanceTimeoutMs: 20_000 })
        const stuck = gate()
        let handedStuck = false
        a.handler = async (_batch, d) => {
          if (d.offset === 3n) {
            handedStuck = true
            await stuck.promise
          }
        }
        a.run(h)
        await waitFor('the handler of offset 3 running', () => handedStuck, { timeoutMs: 5000 })
        let closed = false
        const closing = a.consumer.close({ force: true }).then(() => { closed = true })
        // `closed` is true from the call on, while the member still leaves.
        assert.equal(a.consumer.closed, true)
        try {
          await waitFor('close({ force: true }) returning while the handler is still out', () => closed, { timeoutMs: 5000 })
        } finally {
          stuck.release()
        }
        await closing
        await a.running?.catch(() => {})
        assert.equal(h.committed(0), 3n)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B taking over at once', () => b.processedUpTo(0) === 10n, { timeoutMs: 5000 })
        assert.equal(b.offsets(0)[0], 3n)
      })
    })
  })
}

describe('close() and closed: the same on every closeable class', () => {
  test('Producer, ShareConsumer and Client: closed is false before close() and true from the call on; close() refuses unknown options', async () => {
    const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
    const client = new Client({ bootstrap: cluster.bootstrap })
    try {
      const producer = new Producer(client)
      const share = new ShareConsumer(client, { groupId: 'g', topics: 't' })
      for (const [what, closeable] of [['producer', producer], ['share consumer', share]] as const) {
        assert.equal(closeable.closed, false, what)
        await assert.rejects(closeable.close({ forced: true } as never), /option forced is not an option; did you mean force\?/)
        await assert.rejects(closeable.close({ force: 'yes' } as never), /option force: expected true or false/)
        const closing = closeable.close({ force: false })
        assert.equal(closeable.closed, true, what)
        await closing
      }
      assert.deepEqual(share.assignment(), [])
      assert.equal(client.closed, false)
    } finally {
      await client.close()
      await cluster.close()
    }
    assert.equal(client.closed, true)
  })
})
