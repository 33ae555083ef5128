// The admin calls on brokers older than the APIs they use, against the fake cluster made to
// advertise an old release's versions (tests/support/old-broker.ts): describeCluster from
// Metadata before 2.8 (native, kafkajs drop-in, CLI), alterConfigs as a read-modify-write
// with AlterConfigs before 2.3, describeConfigs with DescribeConfigs v0 on 0.11, createTopics
// without counts before 2.4, and what an UnsupportedVersionError says to do.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import * as path from 'node:path'
import { BrokerError, Client, UnsupportedVersionError } from '../../index'
import { Kafka, logLevel } from '../../kafkajs/index'
import { FakeCluster } from '../../testing/index'
import { AlterConfigs } from '../../protocol/apis/alter-configs'
import { CreateTopics } from '../../protocol/apis/create-topics'
import { DescribeConfigs } from '../../protocol/apis/describe-configs'
import { Metadata } from '../../protocol/apis/metadata'
import { ErrorCode } from '../../protocol/error-codes'
import { advertiseRelease } from '../support/old-broker'

async function withOldCluster (release: string, body: (cluster: FakeCluster, client: Client) => Promise<void>, overrides?: Record<number, [number, number] | null>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 2, log: false, defaultPartitions: 3, topics: [{ name: 'orders', partitions: 1 }] })
  advertiseRelease(cluster, release, overrides)
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'old-broker-test', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

describe('describeCluster on a broker without DescribeCluster (Kafka 2.4)', () => {
  test('answers from Metadata: the brokers, the controller and the cluster id', async () => {
    await withOldCluster('2.4', async (cluster, client) => {
      const described = await client.admin.describeCluster()
      assert.deepEqual(described.brokers.map(b => [b.nodeId, b.port, b.isFenced]), cluster.brokerIds.map(id => [id, cluster.port(id), false]))
      assert.equal(described.controllerId, cluster.brokerIds[0])
      assert.ok(described.clusterId.length > 0)
      assert.equal(described.authorizedOperations, undefined)
      assert.ok(cluster.requests(Metadata).length > 0)
    })
  })

  test('authorized operations come from Metadata v8–v10; a broker below v8 cannot tell them, and the error says which brokers can', async () => {
    await withOldCluster('2.4', async (cluster, client) => {
      // The fake computes no ACLs: its Metadata answer is given read (bit 3) and describe (bit 8).
      cluster.intercept(Metadata, req => req.request.includeClusterAuthorizedOperations === true ? { modify: response => ({ ...response, clusterAuthorizedOperations: (1 << 3) | (1 << 8) }) } : undefined)
      const described = await client.admin.describeCluster({ includeAuthorizedOperations: true })
      assert.deepEqual(described.authorizedOperations, ['read', 'describe'])
      assert.equal(cluster.requests(Metadata).at(-1)?.version, 9)
    })
    await withOldCluster('2.1', async (_cluster, client) => {
      await assert.rejects(client.admin.describeCluster({ includeAuthorizedOperations: true }), (error: unknown) =>
        error instanceof UnsupportedVersionError && /Metadata v8–v10/.test(error.message) && /Kafka 2\.3 or later/.test(error.message))
    })
  })

  test('the kafkajs drop-in\'s admin.describeCluster() answers as kafkajs does there', async () => {
    await withOldCluster('2.4', async cluster => {
      const admin = new Kafka({ brokers: cluster.bootstrap, clientId: 'old-broker-kjs', logLevel: logLevel.NOTHING }).admin()
      await admin.connect()
      try {
        const described = await admin.describeCluster()
        assert.deepEqual(described.brokers.map(b => b.nodeId), cluster.brokerIds)
        assert.equal(described.controller, cluster.brokerIds[0])
        assert.ok(described.clusterId.length > 0)
      } finally {
        await admin.disconnect()
      }
    })
  })

  test('kafkats cluster prints it', async () => {
    await withOldCluster('2.4', async cluster => {
      const bin = path.join(__dirname, '..', '..', 'cli', 'main.js')
      const run = await new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, 'cluster', '--json', '-b', cluster.bootstrap.join(',')], { stdio: ['ignore', 'pipe', 'pipe'] })
        let stdout = ''
        let stderr = ''
        child.stdout.on('data', chunk => { stdout += chunk })
        child.stderr.on('data', chunk => { stderr += chunk })
        child.on('error', reject)
        child.on('close', code => resolve({ code, stdout, stderr }))
      })
      assert.equal(run.code, 0, run.stderr)
      const described = JSON.parse(run.stdout) as { controllerId: number, brokers: Array<{ nodeId: number }> }
      assert.deepEqual(described.brokers.map(b => b.nodeId), cluster.brokerIds)
      assert.equal(described.controllerId, cluster.brokerIds[0])
    })
  })
})

describe('alterConfigs on a broker without IncrementalAlterConfigs (Kafka 2.1)', () => {
  const topicConfigs = async (client: Client, topic: string): Promise<Record<string, string | null>> => {
    const [described] = await client.admin.describeConfigs([{ type: 'topic', name: topic }])
    return Object.fromEntries([...described.configs.values()].filter(c => c.sourceName === 'dynamic-topic').map(c => [c.name, c.value]))
  }

  test('writes back the topic\'s own configs with the change: only the given entries change', async () => {
    await withOldCluster('2.1', async (cluster, client) => {
      cluster.createTopic({ name: 'events', partitions: 1, configs: { 'retention.ms': '1000', 'cleanup.policy': 'delete', 'min.insync.replicas': '1' } })
      const [altered] = await client.admin.alterConfigs([{ type: 'topic', name: 'events', set: { 'retention.ms': '2000' }, delete: ['min.insync.replicas'], append: { 'cleanup.policy': 'compact' } }])
      assert.equal(altered.error, undefined)
      assert.deepEqual(await topicConfigs(client, 'events'), { 'retention.ms': '2000', 'cleanup.policy': 'delete,compact' })
      // What went over the wire: one AlterConfigs with the whole set, after a DescribeConfigs.
      const [request] = cluster.requests(AlterConfigs)
      assert.deepEqual(request.request.resources[0].configs, [{ name: 'retention.ms', value: '2000' }, { name: 'cleanup.policy', value: 'delete,compact' }])
      assert.ok(cluster.requests(DescribeConfigs).length > 0)

      // subtract, and validateOnly changes nothing.
      await client.admin.alterConfigs([{ type: 'topic', name: 'events', subtract: { 'cleanup.policy': 'delete' } }])
      assert.deepEqual(await topicConfigs(client, 'events'), { 'retention.ms': '2000', 'cleanup.policy': 'compact' })
      await client.admin.alterConfigs([{ type: 'topic', name: 'events', set: { 'retention.ms': '5' } }], { validateOnly: true })
      assert.equal((await topicConfigs(client, 'events'))['retention.ms'], '2000')
    })
  })

  test('a sensitive value the broker does not show is not silently removed: the resource is refused unless the call sets it', async () => {
    await withOldCluster('2.1', async (cluster, client) => {
      cluster.createTopic({ name: 'secret', partitions: 1, configs: { 'retention.ms': '1000', 'sasl.password': 'hunter2' } })
      // As Kafka answers a sensitive config: no value.
      const hideSecret = cluster.intercept(DescribeConfigs, () => ({
        modify: response => ({ ...response, results: response.results.map(r => ({ ...r, configs: r.configs.map(c => c.name === 'sasl.password' ? { ...c, value: null, isSensitive: true } : c) })) })
      }))
      const [refused, unknown] = await client.admin.alterConfigs([{ type: 'topic', name: 'secret', set: { 'retention.ms': '2000' } }, { type: 'topic', name: 'missing', set: { a: 'b' } }])
      assert.ok(refused.error instanceof BrokerError)
      assert.equal(refused.error.code, ErrorCode.UNSUPPORTED_VERSION)
      assert.match(refused.error.message, /sasl\.password cannot be read back/)
      assert.match(refused.error.message, /Kafka 2\.3 or later/)
      assert.equal(unknown.error?.code, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      assert.equal(cluster.requests(AlterConfigs).length, 0)

      const [set] = await client.admin.alterConfigs([{ type: 'topic', name: 'secret', set: { 'retention.ms': '2000', 'sasl.password': 'correct horse' } }])
      assert.equal(set.error, undefined)
      hideSecret()
      assert.deepEqual(await topicConfigs(client, 'secret'), { 'retention.ms': '2000', 'sasl.password': 'correct horse' })
    })
  })
})

describe('describeConfigs on a broker that speaks only DescribeConfigs v0 (Kafka 0.11)', () => {
  test('speaks v0: values, and sources from isDefault as the Java client reads them', async () => {
    await withOldCluster('0.11', async (cluster, client) => {
      cluster.createTopic({ name: 'events', partitions: 1, configs: { 'retention.ms': '1000' } })
      const [topic, broker] = await client.admin.describeConfigs([{ type: 'topic', name: 'events' }, { type: 'broker', name: String(cluster.brokerIds[0]) }])
      assert.equal(topic.error, undefined)
      assert.equal(topic.configs.get('retention.ms')?.sourceName, 'dynamic-topic')
      assert.equal(topic.configs.get('retention.ms')?.value, '1000')
      assert.equal(topic.configs.get('max.message.bytes')?.isDefault, true)
      assert.equal(topic.configs.get('max.message.bytes')?.sourceName, 'default')
      assert.equal(broker.configs.get('num.partitions')?.sourceName, 'static-broker')
      assert.deepEqual(cluster.requests(DescribeConfigs).map(r => r.version), [0, 0])
    })
  })
})

describe('createTopics without counts on a broker before Kafka 2.4 (CreateTopics below v4)', () => {
  test('spells out the controller\'s num.partitions and default.replication.factor', async () => {
    await withOldCluster('2.1', async (cluster, client) => {
      const [created, explicit] = await client.admin.createTopics([{ topic: 'fresh' }, { topic: 'sized', numPartitions: 2, replicationFactor: 1 }])
      assert.equal(created.error, undefined)
      assert.equal(explicit.error, undefined)
      assert.equal(client.metadata.topic('fresh')?.partitions.length, 3)
      const [request] = cluster.requests(CreateTopics)
      assert.equal(request.version, 3)
      assert.deepEqual(request.request.topics.map(t => [t.name, t.numPartitions, t.replicationFactor]), [['fresh', 3, 1], ['sized', 2, 1]])
    })
  })

  test('when they cannot be read, the topics that need them fail saying this broker needs them given; the others are created', async () => {
    await withOldCluster('2.1', async (cluster, client) => {
      cluster.intercept(DescribeConfigs, () => ({ error: ErrorCode.CLUSTER_AUTHORIZATION_FAILED }))
      const [defaulted, explicit] = await client.admin.createTopics([{ topic: 'fresh', numPartitions: 1 }, { topic: 'sized', numPartitions: 2, replicationFactor: 1 }])
      assert.ok(defaulted.error instanceof BrokerError)
      assert.equal(defaulted.error.code, ErrorCode.INVALID_REPLICATION_FACTOR)
      assert.match(defaulted.error.message, /CreateTopics up to v3, before Kafka 2\.4/)
      assert.match(defaulted.error.message, /needs both given explicitly/)
      assert.equal(explicit.error, undefined)
      assert.deepEqual(cluster.requests(CreateTopics).flatMap(r => r.request.topics.map(t => t.name)), ['sized'])
    })
  })
})

describe('an API the broker lacks, or no version in common: the error names the brokers that work', () => {
  test('an API the broker does not speak', async () => {
    await withOldCluster('2.4', async (_cluster, client) => {
      await assert.rejects(client.admin.describeQuorum(), (error: unknown) =>
        error instanceof UnsupportedVersionError && /does not speak DescribeQuorum \(API key 55\)/.test(error.message) && /Kafka 3\.3 or later in KRaft mode/.test(error.message))
    })
  })

  test('versions that do not overlap: a broker below kafkats\'s lowest', async () => {
    // Kafka 0.10.0 speaks ListOffsets v0 only; kafkats speaks v1 up (the lowest 4.x brokers accept).
    await withOldCluster('0.10.0', async (_cluster, client) => {
      await assert.rejects(client.admin.listOffsets([{ topic: 'orders', partition: 0, spec: 'latest' }]), (error: unknown) =>
        error instanceof UnsupportedVersionError && /speaks ListOffsets v0–v0, kafkats speaks v1–v11: no version in common; which brokers of Kafka 0\.10\.1 or later speak/.test(error.message))
    }, { 2: [0, 0] })
  })
})
