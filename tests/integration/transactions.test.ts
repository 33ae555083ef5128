// Transactions against real Kafka 4.4 brokers: what a read_committed reader sees (kafkats's
// consumer and the Java ConsoleConsumer) after commits and aborts with every codec,
// offsets committed in a transaction, zombie fencing, the coordinator's timeout abort of a
// SIGSTOPped producer process (which then goes on, KIP-588), transaction.version 1 and 2, and the transaction
// coordinator's broker SIGKILLed mid-transaction on three nodes.
//
// Each cluster is this file's own (the timeout test needs a fast timed-out transaction
// cleanup, the version 1 test a cluster formatted with transaction.version=1).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import * as path from 'node:path'
import { Client, ProducerFencedError, TransactionAbortableError, type Producer } from '../../index'
import type { CompressionCodec } from '../../protocol/compression'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { kafkaClasspath, startCluster, type KafkaCluster } from '../broker/kafka'
import { requireJavaOrSkip, uniqueName } from './support'
import { readCommitted } from './transactions-support'
import { waitFor, sleep } from '../support/wait'

const skip = requireJavaOrSkip()
const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/** The Java ConsoleConsumer in read_committed: every value of the topic, in the order it printed them. */
async function javaReadCommitted (bootstrap: string[], topic: string, expected: number): Promise<string[]> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile('java', ['-Xmx256M', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.consumer.ConsoleConsumer',
      '--bootstrap-server', bootstrap.join(','), '--topic', topic, '--from-beginning', '--isolation-level', 'read_committed',
      // Exactly the expected count: an aborted record shown would take a committed one's place.
      '--max-messages', String(expected), '--timeout-ms', '20000'], { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      // It exits non-zero on its timeout, which is how it ends when fewer messages come.
      if (error !== null && !/Processed a total of/.test(stderr)) reject(new Error(`ConsoleConsumer failed: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
  // Its log lines (timestamped) go to stdout too.
  return output.split('\n').filter(line => line !== '' && !/^\d\d:\d\d:\d\d\.\d+ \[/.test(line))
}

describe('transactions against a real broker (transaction.version 2)', { skip, timeout: 600_000 }, () => {
  let cluster: KafkaCluster
  let client: Client
  const producers: Producer[] = []

  before(async () => {
    cluster = await startCluster({ portBase: 'free', brokerOverrides: { 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 500 } })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'transactions' })
  })

  after(async () => {
    for (const p of producers) await p.close({ force: true }).catch(() => {})
    await client?.close()
    await cluster?.stop()
  })

  function producer (transactionalId: string, options: Parameters<Client['producer']>[0] = {}): Producer {
    const p = client.producer({ transactionalId, lingerMs: 1, ...options })
    producers.push(p)
    return p
  }

  async function newTopic (name: string, partitions = 1): Promise<string> {
    const topic = uniqueName(name)
    await client.admin.createTopics([{ topic, numPartitions: partitions, replicationFactor: 1 }])
    await client.metadata.waitForTopic(topic, 30_000)
    return topic
  }

  test('the cluster finalizes transaction.version 2 and kafkats uses it', async () => {
    const versions = await client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' })
    assert.equal(versions.finalizedFeatures.find(f => f.name === 'transaction.version')?.maxVersionLevel, 2)
  })

  test('commit and abort with every codec: read_committed (kafkats and Java) sees exactly the committed records', async () => {
    const topic = await newTopic('txn-codecs', CODECS.length)
    const expected: string[][] = []
    for (const [partition, codec] of CODECS.entries()) {
      const p = producer(uniqueName(`txn-${codec}`), { compression: codec })
      const committed = Array.from({ length: 50 }, (_, i) => `${codec}-committed-${i}`)
      await p.transaction(async tx => {
        await tx.send(committed.slice(0, 25).map(value => ({ topic, partition, value })))
        await tx.send(committed.slice(25).map(value => ({ topic, partition, value })))
      })
      await p.beginTransaction()
      await p.send(Array.from({ length: 30 }, (_, i) => ({ topic, partition, value: `${codec}-aborted-${i}` })))
      await p.abortTransaction()
      const after = [`${codec}-after-abort`]
      await p.transaction(async tx => { await tx.send({ topic, partition, value: after[0] }) })
      expected.push([...committed, ...after])
      await p.close()
    }
    for (const [partition, codec] of CODECS.entries()) {
      assert.deepEqual(await readCommitted(client, topic, partition), expected[partition], `kafkats read_committed of the ${codec} partition`)
    }
    const total = expected.flat()
    const java = await javaReadCommitted(cluster.bootstrap, topic, total.length)
    assert.deepEqual([...java].sort(), [...total].sort(), 'Java ConsoleConsumer read_committed: every committed record once, nothing aborted')
  })

  test('offsets sent in a transaction become the group\'s committed offsets only when it commits', async () => {
    const topic = await newTopic('txn-offsets')
    const groupId = uniqueName('txn-group')
    const group = { groupId, memberId: '', generationId: -1, groupInstanceId: null }
    const committedOffset = async (): Promise<bigint | undefined> => {
      const [answer] = await client.admin.fetchOffsets([{ groupId, partitions: [{ topic, partition: 0 }] }])
      const offset = answer.offsets.find(o => o.topic === topic && o.partition === 0)?.offset
      return offset === undefined || offset < 0n ? undefined : offset
    }
    const p = producer(uniqueName('txn-offsets'))
    await p.beginTransaction()
    await p.send({ topic, partition: 0, value: 'x' })
    await p.sendOffsets({ groupMetadata: group, offsets: [{ topic, partition: 0, offset: 11n }] })
    assert.equal(await committedOffset(), undefined, 'not visible while the transaction is open')
    await p.abortTransaction()
    assert.equal(await committedOffset(), undefined, 'an aborted transaction commits no offsets')
    await p.beginTransaction()
    await p.sendOffsets({ groupMetadata: group, offsets: [{ topic, partition: 0, offset: 22n }] })
    await p.commitTransaction()
    await waitFor('the committed offset 22', async () => await committedOffset() === 22n, { timeoutMs: 15_000, intervalMs: 100 })
  })

  test('zombie fencing: a second instance fences the first; nothing of the zombie\'s open transaction is visible', async () => {
    const topic = await newTopic('txn-zombie')
    const transactionalId = uniqueName('txn-zombie')
    const zombie = producer(transactionalId)
    await zombie.beginTransaction()
    await zombie.send(Array.from({ length: 10 }, (_, i) => ({ topic, partition: 0, value: `zombie-${i}` })))
    const successorClient = new Client({ bootstrap: cluster.bootstrap, clientId: 'successor' })
    try {
      const successor = successorClient.producer({ transactionalId, lingerMs: 1 })
      await successor.beginTransaction()
      // PRODUCER_FENCED on EndTxn could also be a timeout abort (KIP-588): the commit is abortable,
      // and the abort's re-init (InitProducerId with the zombie's id and epoch) finds the successor: fenced.
      const refusal = await zombie.commitTransaction().then(() => undefined, (error: unknown) => error)
      assert.ok(refusal instanceof TransactionAbortableError, `the zombie's commit: ${String(refusal)}`)
      const abortRefusal = await zombie.abortTransaction().then(() => undefined, (error: unknown) => error)
      assert.ok(abortRefusal instanceof ProducerFencedError, `the zombie's abort: ${String(abortRefusal)}`)
      assert.equal(zombie.transactionState, 'fatalError')
      await assert.rejects(zombie.send({ topic, partition: 0, value: 'zombie-late' }), ProducerFencedError)
      await successor.send({ topic, partition: 0, value: 'successor' })
      await successor.commitTransaction()
      await successor.close()
    } finally {
      await successorClient.close()
    }
    assert.deepEqual(await readCommitted(client, topic, 0), ['successor'])
  })

  test('a producer process SIGSTOPped past transactionTimeoutMs: the coordinator aborts it, its commit is abortable, nothing of it is visible, and the same producer goes on (KIP-588)', async () => {
    const topic = await newTopic('txn-timeout')
    const member = spawn(process.execPath, [path.join(__dirname, 'transactions-member.js')], {
      env: { ...process.env, BOOTSTRAP: cluster.bootstrap.join(','), TOPIC: topic, TXN_ID: uniqueName('txn-timeout'), TIMEOUT_MS: '2000', RECORDS: '20' },
      stdio: ['pipe', 'pipe', 'inherit']
    })
    let output = ''
    member.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    try {
      await waitFor('the member to send its records', () => output.includes('SENT') || output.includes('FAILED'), { timeoutMs: 60_000, intervalMs: 50 })
      assert.ok(!output.includes('FAILED'), output)
      member.kill('SIGSTOP')
      await sleep(5000) // past the 2 s timeout and the 0.5 s cleanup interval
      member.kill('SIGCONT')
      member.stdin.write('commit\n')
      await waitFor('the member\'s commit result and recovery', () => output.includes('RECOVERED') || /RESULT (?!TransactionAbortableError)/.test(output), { timeoutMs: 60_000, intervalMs: 50 })
      // Transaction version 2: the late EndTxn is answered INVALID_TXN_STATE, abortable, never "committed".
      assert.match(output, /RESULT TransactionAbortableError/, 'the stalled producer\'s commit')
      // Its abort re-initializes with its producer id and epoch (KIP-588), and the next transaction commits.
      assert.match(output, /RECOVERED ok/, 'the same producer, not restarted, commits its next transaction')
    } finally {
      member.kill('SIGKILL')
    }
    assert.deepEqual(await readCommitted(client, topic, 0), ['recovered'])
  })
})

describe('transactions on a cluster formatted with transaction.version 1', { skip, timeout: 300_000 }, () => {
  let cluster: KafkaCluster
  let client: Client

  before(async () => {
    cluster = await startCluster({ portBase: 'free', features: { 'transaction.version': 1 } })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'transactions-v1' })
  })

  after(async () => {
    await client?.close()
    await cluster?.stop()
  })

  // Implicit adds (Produce v12, TxnOffsetCommit v5) do not add anything on version 1: had kafkats
  // not sent AddPartitionsToTxn/AddOffsetsToTxn, the broker would refuse the records and offsets.
  test('commit and abort are seen right by read_committed; offsets commit with the transaction', async () => {
    const versions = await client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' })
    assert.equal(versions.finalizedFeatures.find(f => f.name === 'transaction.version')?.maxVersionLevel ?? 0, 1)
    const topic = uniqueName('txn-v1')
    await client.admin.createTopics([{ topic, numPartitions: 2, replicationFactor: 1 }])
    await client.metadata.waitForTopic(topic, 30_000)
    const groupId = uniqueName('txn-v1-group')
    const p = client.producer({ transactionalId: uniqueName('txn-v1'), lingerMs: 1 })
    try {
      await p.transaction(async tx => {
        await tx.send([{ topic, partition: 0, value: 'a' }, { topic, partition: 1, value: 'b' }])
        await tx.sendOffsets({ groupMetadata: { groupId, memberId: '', generationId: -1, groupInstanceId: null }, offsets: [{ topic, partition: 0, offset: 5n }] })
      })
      await p.beginTransaction()
      await p.send({ topic, partition: 0, value: 'aborted' })
      await p.abortTransaction()
      await p.transaction(async tx => { await tx.send({ topic, partition: 0, value: 'c' }) })
    } finally {
      await p.close()
    }
    assert.deepEqual(await readCommitted(client, topic, 0), ['a', 'c'])
    assert.deepEqual(await readCommitted(client, topic, 1), ['b'])
    const [answer] = await client.admin.fetchOffsets([{ groupId, partitions: [{ topic, partition: 0 }] }])
    assert.equal(answer.offsets.find(o => o.partition === 0)?.offset, 5n)
  })
})
