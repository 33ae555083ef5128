// How a consumer hands fetched data to the application, against the fake cluster (direct
// assignment): merged batches while the application is behind, a seek that makes the
// batch in progress stale, and the checks of what users pass to assign, seek and run().
//
// The failure story: a slow handler got 2 records per batch while 500 waited in the
// buffer (one batch per fetch answer), so per-batch costs (a commit, a transaction) were
// paid per 2 records exactly when the application was already behind. The other way
// round, a 4 MiB fetch answer handed out whole kept 33,000 decoded records alive at once
// and cost 1.6x the CPU per record in garbage collection.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import * as path from 'node:path'
import { Client } from '../../index'
import { Consumer, recordMakerOption, type AssignOptions } from '../../consumer/consumer'
import type { ConsumerBatch } from '../../consumer/cursor'
import { FakeCluster } from '../../testing/index'
import { KafkaMessageMaker, toKafkaMessages } from '../../kafkajs/messages'
import type { KafkaRecord } from '../../protocol/record-batch'
import { outcomeWithin, waitFor } from '../support/wait'
import { consumerInternals } from '../../consumer/consumer'



describe('consumer hand-out', { timeout: 60_000 }, () => {
  let cluster: FakeCluster
  let client: Client
  let topicNo = 0

  before(async () => {
    cluster = await FakeCluster.start({ log: false, topics: Array.from({ length: 20 }, (_, i) => ({ name: `hand-out-${i + 1}`, partitions: 1 })) })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'hand-out', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  })

  after(async () => {
    await client.close()
    await cluster.close()
  })

  /** A fresh one-partition topic with `count` records, one per record batch. */
  async function topicWith (count: number): Promise<string> {
    const topic = `hand-out-${++topicNo}`
    await client.metadata.refresh([topic])
    await produce(topic, count)
    return topic
  }

  async function produce (topic: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(String(i)) }] })
  }

  /** While the handler holds the first batch, `later` records arrive one fetch answer at a time; returns the batch sizes. */
  async function sizesWhileBehind (later: number, options: { maxBatchRecords?: number, maxBatchBytes?: number } = {}): Promise<{ sizes: number[], offsets: bigint[] }> {
    const topic = await topicWith(1)
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10, ...options })
    const sizes: number[] = []
    const offsets: bigint[] = []
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    const running = consumer.run({
      eachBatch: async batch => {
        sizes.push(batch.records.length)
        for (const r of batch.records) offsets.push(r.offset)
        if (sizes.length === 1) await held
      }
    })
    try {
      await waitFor('the first batch', () => sizes.length === 1)
      await produce(topic, later)
      await waitFor('everything fetched into the buffer', () => consumerInternals(consumer).cursor(topic, 0)?.fetchOffset === BigInt(1 + later))
      release()
      await waitFor('every record handed out', () => offsets.length === 1 + later)
    } finally {
      release()
      await consumer.close()
      await running
    }
    return { sizes, offsets }
  }

  test('while the handler is behind, buffered fetch answers of a partition are handed out as one batch', async () => {
    const { sizes, offsets } = await sizesWhileBehind(300)
    assert.deepEqual(offsets, Array.from({ length: 301 }, (_, i) => BigInt(i)))
    assert.deepEqual(sizes, [1, 300], 'the 300 waiting records were not merged')
  })

  test('merged batches stop at maxBatchRecords, in order and without gaps', async () => {
    const { sizes, offsets } = await sizesWhileBehind(250, { maxBatchRecords: 100 })
    assert.deepEqual(offsets, Array.from({ length: 251 }, (_, i) => BigInt(i)))
    assert.ok(sizes.every(s => s <= 100), `a batch above maxBatchRecords: ${sizes.join(',')}`)
    assert.ok(sizes.length <= 5, `not merged: ${sizes.length} batches`)
  })

  /** The batches (first offset, record count, nextOffset) of a partition's records, read to `end` with `options`. */
  async function batchesOf (topic: string, end: bigint, options: { maxBatchRecords?: number, maxBatchBytes?: number }): Promise<Array<[bigint, number, bigint]>> {
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10, ...options })
    const batches: Array<[bigint, number, bigint]> = []
    const running = consumer.run({
      eachBatch: batch => { batches.push([batch.records[0].offset, batch.records.length, batch.nextOffset]) }
    })
    try {
      await waitFor(`every record to offset ${end}`, () => batches.length > 0 && batches[batches.length - 1][2] === end)
      assert.equal(consumerInternals(consumer).cursor(topic, 0)?.bufferedBytes, 0, 'bytes still counted as buffered')
    } finally {
      await consumer.close()
      await running
    }
    return batches
  }

  test('a fetch answer past maxBatchRecords is handed out in parts between its record batches, in order and without gaps', async () => {
    const topic = await topicWith(10)
    // One answer holds all ten record batches (maxPartitionBytes is far above them).
    assert.deepEqual(await batchesOf(topic, 10n, { maxBatchRecords: 3 }), [[0n, 3, 3n], [3n, 3, 6n], [6n, 3, 9n], [9n, 1, 10n]])
    assert.deepEqual(await batchesOf(topic, 10n, { maxBatchRecords: 500 }), [[0n, 10, 10n]], 'an answer within the limit comes whole')
    const perRecord = (await batchesOf(topic, 10n, { maxBatchRecords: 500, maxBatchBytes: 1 }))
    assert.deepEqual(perRecord.map(b => b[1]), Array(10).fill(1), 'maxBatchBytes splits too')
  })

  test('each part of a split answer but its last says more of the answer follows (moreOfAnswer, what the kafkajs drop-in commits by)', async () => {
    const topic = await topicWith(10)
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10, maxBatchRecords: 4 })
    const parts: Array<[bigint, number, boolean]> = []
    try {
      while (parts.length === 0 || parts[parts.length - 1][0] + BigInt(parts[parts.length - 1][1]) < 10n) {
        const handed = (await consumer.nextBatch())!
        parts.push([handed.batch.records[0].offset, handed.batch.records.length, handed.moreOfAnswer])
        handed.finish()
      }
      await produce(topic, 1)
      const next = (await consumer.nextBatch())!
      parts.push([next.batch.records[0].offset, next.batch.records.length, next.moreOfAnswer])
      next.finish()
    } finally {
      await consumer.close()
    }
    assert.deepEqual(parts, [[0n, 4, true], [4n, 4, true], [8n, 2, false], [10n, 1, false]])
  })

  test('a record batch larger than maxBatchRecords comes whole', async () => {
    const topic = `hand-out-${++topicNo}`
    await client.metadata.refresh([topic])
    await client.produceRaw({ topic, partition: 0, records: Array.from({ length: 5 }, (_, i) => ({ value: Buffer.from(String(i)) })) })
    await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('5') }] })
    assert.deepEqual(await batchesOf(topic, 6n, { maxBatchRecords: 2 }), [[0n, 5, 5n], [5n, 1, 6n]])
  })

  test('eachRecord: a seek inside the handler stops the batch at the next record, and reading goes on from the target', async () => {
    const topic = await topicWith(10)
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10 })
    await waitFor('all ten records in one buffered batch', () => (consumerInternals(consumer).cursor(topic, 0)?.buffered.length ?? 0) > 0 && consumerInternals(consumer).cursor(topic, 0)?.fetchOffset === 10n)
    const seen: bigint[] = []
    const stale: boolean[] = []
    let seeked = false
    const running = consumer.run({
      eachRecord: (record, batch: ConsumerBatch) => {
        seen.push(record.offset)
        if (record.offset === 3n && !seeked) {
          seeked = true
          consumer.seek({ topic, partition: 0, offset: 1n })
          stale.push(batch.isStale())
        }
      }
    })
    await waitFor('the end of the partition', () => seen.includes(9n))
    await consumer.close()
    await running
    assert.deepEqual(stale, [true], 'the seeked batch did not say it was stale')
    assert.deepEqual(seen, [0n, 1n, 2n, 3n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n])
  })

  test('a record maker: batches hold what it made, from the fetch offset on when the fetch starts inside a batch, and lag() still counts', async () => {
    const topic = `hand-out-${++topicNo}`
    await client.metadata.refresh([topic])
    const values = (from: number, n: number): Array<{ value: Buffer, headers?: Array<{ key: string, value: Buffer | null }> }> =>
      Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`v${from + i}`), headers: i === 1 ? [{ key: 'h', value: null }] : undefined }))
    await client.produceRaw({ topic, partition: 0, records: values(0, 10), compression: 'lz4' })
    await client.produceRaw({ topic, partition: 0, records: values(10, 5) })
    const read = async (recordMaker?: KafkaMessageMaker): Promise<{ records: unknown[], lag: bigint | undefined }> => {
      const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 4n }], maxWaitMs: 10, [recordMakerOption]: recordMaker } as AssignOptions)
      try {
        await waitFor('both batches fetched', () => consumerInternals(consumer).cursor(topic, 0)?.fetchOffset === 15n)
        const handed = await consumer.nextBatch()
        assert.ok(handed !== undefined)
        // Processed nothing yet: the lag counts from the batch's first record.
        const lag = consumer.lag()[0].lag
        handed.finish()
        return { records: handed.batch.records, lag }
      } finally {
        await consumer.close()
      }
    }
    const native = await read()
    const made = await read(new KafkaMessageMaker())
    assert.deepEqual((native.records as KafkaRecord[]).map(r => r.offset), Array.from({ length: 11 }, (_, i) => BigInt(4 + i)))
    assert.deepEqual(made.records, toKafkaMessages(native.records as KafkaRecord[]))
    assert.equal(made.lag, 11n)
    assert.equal(native.lag, 11n)
  })

  test('what users pass to assign, seek and run() is checked where they pass it', async () => {
    assert.throws(() => Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0 as unknown as bigint }] }),
      (e: Error) => e instanceof TypeError && /0n/.test(e.message) && /'earliest'/.test(e.message) && /'latest'/.test(e.message) && /timestamp/.test(e.message) && /assign\[0\]\.offset/.test(e.message))
    assert.throws(() => Consumer.assigned(client, { assign: [{ topic: 't', partition: -1, offset: 0n }] }), RangeError)
    assert.throws(() => Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: -2n }] }), RangeError)
    assert.throws(() => Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: { timestamp: 'yesterday' } as unknown as { timestamp: number } }] }), TypeError)
    assert.throws(() => Consumer.assigned(client, { assign: [], maxProcessingMs: -1 }), (e: Error) => e instanceof RangeError && /maxProcessingMs/.test(e.message))
    assert.throws(() => Consumer.assigned(client, { assign: [], maxBatchRecords: 0 }), (e: Error) => e instanceof RangeError && /maxBatchRecords/.test(e.message))
    assert.throws(() => Consumer.assigned(client, { assign: [], maxBatchBytes: 1.5 }), (e: Error) => e instanceof TypeError && /maxBatchBytes/.test(e.message))

    const topic = await topicWith(1)
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 'earliest' }] })
    try {
      assert.throws(() => consumer.seek({ topic, partition: 0, offset: 5 as unknown as bigint }), (e: Error) => e instanceof TypeError && /5n/.test(e.message))
      await assert.rejects(consumer.run({ eachMessage: () => {} } as never), (e: Error) => e instanceof TypeError && /did you mean eachRecord/.test(e.message))
      await assert.rejects(consumer.run({}), TypeError)
      await assert.rejects(consumer.run({ eachBatch: () => {}, eachRecord: () => {} }), TypeError)
      await assert.rejects(consumer.run({ eachBatch: () => {}, partitionsConcurrently: 0 }), RangeError)
      await assert.rejects(consumer.run({ eachBatch: () => {}, retry: { initialMs: -5 } }), RangeError)
      await assert.rejects(consumer.run({ eachBatch: () => {}, retry: { backoff: 5 } as never }), TypeError)
      await assert.rejects(consumer.run({ eachBatch: () => {}, signal: 'stop' as never }), (e: Error) => e instanceof TypeError && /signal/.test(e.message))
      assert.throws(() => consumer.batches({ signal: {} as never }), (e: Error) => e instanceof TypeError && /signal/.test(e.message))
      assert.throws(() => consumer.batches({ sginal: new AbortController().signal } as never), (e: Error) => e instanceof TypeError && /sginal/.test(e.message) && /signal/.test(e.message.replace('sginal', '')))
    } finally {
      await consumer.close()
    }
  })

  /** A consumer of a fresh topic with 10 records in batches of 2, once all of them are fetched into the buffer. */
  async function bufferedInTwos (): Promise<{ topic: string, consumer: Consumer }> {
    const topic = await topicWith(10)
    const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10, maxBatchRecords: 2 })
    await waitFor('everything fetched into the buffer', () => consumerInternals(consumer).cursor(topic, 0)?.fetchOffset === 10n)
    return { topic, consumer }
  }

  test('run({ signal }): the handler running when it aborts finishes its whole batch, which counts as processed; run() resolves, nothing more is handed out, and the consumer stays open', async () => {
    const { consumer } = await bufferedInTwos()
    const stop = new AbortController()
    const seen: bigint[] = []
    try {
      await consumer.run({
        signal: stop.signal,
        eachRecord: record => {
          seen.push(record.offset)
          if (record.offset === 2n) stop.abort()
        }
      })
      assert.deepEqual(seen, [0n, 1n, 2n, 3n])
      assert.equal(consumer.lag()[0].processedOffset, 4n)
      assert.equal(consumer.closed, false)
    } finally {
      await consumer.close()
    }
  })

  test('batches({ signal }): the loop ends when it asks for the next batch, the batch in hand then counts as processed, and the consumer stays open', async () => {
    const { consumer } = await bufferedInTwos()
    const stop = new AbortController()
    const firsts: bigint[] = []
    try {
      for await (const batch of consumer.batches({ signal: stop.signal })) {
        firsts.push(batch.records[0].offset)
        if (batch.records[0].offset === 2n) stop.abort()
      }
      assert.deepEqual(firsts, [0n, 2n])
      assert.equal(consumer.lag()[0].processedOffset, 4n)
      assert.equal(consumer.closed, false)
      // A loop waiting for records ends at once when the signal aborts.
      const waiting = new AbortController()
      const loop = (async () => { for await (const batch of consumer.batches({ signal: waiting.signal })) firsts.push(batch.records[0].offset) })()
      await waitFor('the rest handed out', () => firsts.length === 5)
      waiting.abort()
      await loop
      assert.equal(consumer.lag()[0].processedOffset, 10n)
    } finally {
      await consumer.close()
    }
  })

  for (const stopBy of ['close()', 'run()\'s signal'] as const) {
    test(`${stopBy} during run()'s retry backoff ends the backoff at once: run() resolves well before the 10 min backoff, the batch not processed`, async () => {
      const topic = await topicWith(3)
      const consumer = Consumer.assigned(client, { assign: [{ topic, partition: 0, offset: 0n }], maxWaitMs: 10 })
      const stop = new AbortController()
      let retries = 0
      consumer.on('handlerError', () => { retries++ })
      try {
        // The backoff is far beyond the test's time: run() ending at all is the stop ending it.
        const running = consumer.run({ signal: stop.signal, retry: { initialMs: 600_000, maxMs: 600_000 }, eachBatch: () => { throw new Error('not yet') } })
        await waitFor('the first retry backoff', () => retries === 1)
        if (stopBy === 'close()') await consumer.close()
        else stop.abort()
        assert.equal(await outcomeWithin(running, 60_000), 'resolved')
        assert.equal(consumer.lag()[0]?.processedOffset, undefined)
        assert.equal(retries, 1)
      } finally {
        await consumer.close()
      }
    })
  }

  test('close() ends the wait to resolve a start offset: a script that closed its consumer exits at once, not after the ListOffsets retry backoff (30 s)', async () => {
    const dist = path.join(__dirname, '..', '..')
    const script = `
      const { Client } = require(${JSON.stringify(path.join(dist, 'client', 'client.js'))})
      const { Consumer } = require(${JSON.stringify(path.join(dist, 'consumer', 'consumer.js'))})
      const { FakeCluster } = require(${JSON.stringify(path.join(dist, 'testing', 'index.js'))})
      const { ListOffsets } = require(${JSON.stringify(path.join(dist, 'protocol', 'apis', 'list-offsets.js'))})
      ;(async () => {
        const cluster = await FakeCluster.start({ log: false, topics: [{ name: 't', partitions: 1 }] })
        let answered = 0
        // NOT_LEADER_OR_FOLLOWER for ever: the start offset is asked again after each backoff.
        cluster.intercept(ListOffsets, () => { answered++; return { error: 6 } })
        const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 30000, maxMs: 30000 }, requestTimeoutMs: 120000 })
        const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 'earliest' }] })
        while (answered === 0) await new Promise(resolve => setTimeout(resolve, 10))
        await consumer.close()
        await client.close()
        await cluster.close()
        // What could still keep the process alive, a turn after everything closed: a timer left
        // behind (a retry backoff) shows as a Timeout; unref'd timers do not show, nor keep it alive.
        setImmediate(() => process.stdout.write('closed, still active: ' + JSON.stringify(process.getActiveResourcesInfo()) + '\\n'))
      })()`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', chunk => { stderr += chunk })
    let stdout = ''
    child.stdout.on('data', chunk => { stdout += chunk })
    // Only stops a hang; what proves the promise is the list of what was still active.
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const code = await new Promise(resolve => child.on('close', resolve))
    clearTimeout(killer)
    assert.equal(code, 0, stderr)
    const active = /closed, still active: (.*)/.exec(stdout)
    assert.ok(active !== null, `the script did not close: ${stdout} ${stderr}`)
    assert.deepEqual((JSON.parse(active[1]) as string[]).filter(kind => kind === 'Timeout'), [], `a timer keeps the process alive after everything was closed: ${active[1]}`)
  })
})
