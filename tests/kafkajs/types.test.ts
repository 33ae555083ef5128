// kafkats/kafkajs's published declarations accept kafkajs-typed code under `tsc --strict`:
// a program using the whole surface (client options, logCreator, events, producer and
// transactions, consumer with eachBatch helpers, admin, enums, error constructors) is
// type-checked against dist/kafkajs/index.d.ts, and a program that misuses it is refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const root = path.join(__dirname, '..', '..', '..')
const declarations = path.join(root, 'dist', 'kafkajs', 'index')

const program = `
import {
  Kafka, logLevel, CompressionTypes, CompressionCodecs, Partitioners, PartitionAssigners, AssignerProtocol,
  ConfigResourceTypes, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes, ConfigSource,
  KafkaJSError, KafkaJSProtocolError, KafkaJSNumberOfRetriesExceeded, KafkaJSConnectionError, KafkaJSRequestTimeoutError,
  KafkaJSTopicMetadataNotLoaded, KafkaJSOffsetOutOfRange, KafkaJSNonRetriableError,
  type LogEntry, type EachBatchPayload, type Message, type RecordMetadata
} from 'DECLARATIONS'

const kafka = new Kafka({
  clientId: 'typed',
  brokers: async () => ['localhost:9092'],
  ssl: { rejectUnauthorized: false },
  sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
  connectionTimeout: 3000,
  requestTimeout: 25000,
  retry: { retries: 8, initialRetryTime: 100 },
  logLevel: logLevel.WARN,
  logCreator: (level: logLevel) => (entry: LogEntry) => { void level; void entry.log.message; void entry.namespace }
})
kafka.logger().info('started', { pid: 1 })

export async function produce (): Promise<RecordMetadata[]> {
  const producer = kafka.producer({ createPartitioner: Partitioners.LegacyPartitioner, idempotent: true, transactionalId: 't' })
  const off: () => void = producer.on(producer.events.CONNECT, event => { void event.timestamp })
  off()
  await producer.connect()
  const message: Message = { key: Buffer.from('k'), value: 'v', headers: { a: 'x', b: ['y', Buffer.from('z')] }, timestamp: String(Date.now()) }
  const sent = await producer.send({ topic: 't', messages: [message], acks: -1, compression: CompressionTypes.GZIP })
  const transaction = await producer.transaction()
  await transaction.send({ topic: 't', messages: [message] })
  await transaction.sendOffsets({ consumerGroupId: 'g', topics: [{ topic: 't', partitions: [{ partition: 0, offset: '1' }] }] })
  if (transaction.isActive()) await transaction.commit()
  await producer.disconnect()
  const baseOffset: string | undefined = sent[0].baseOffset
  void baseOffset
  return sent
}

export async function consume (): Promise<void> {
  const consumer = kafka.consumer({ groupId: 'g', partitionAssigners: [PartitionAssigners.roundRobin], sessionTimeout: 30000, readUncommitted: false })
  consumer.on(consumer.events.GROUP_JOIN, event => { void event.payload })
  await consumer.connect()
  await consumer.subscribe({ topics: ['a', /b-.*/], fromBeginning: true })
  await consumer.run({
    partitionsConsumedConcurrently: 2,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, uncommittedOffsets, isRunning, isStale, pause }: EachBatchPayload) => {
      for (const message of batch.messages) {
        if (!isRunning() || isStale()) break
        const offset: string = message.offset
        const value: Buffer | null = message.value
        void value
        resolveOffset(offset)
        await heartbeat()
      }
      const lag: string = batch.offsetLagLow()
      void lag
      await commitOffsetsIfNecessary(uncommittedOffsets())
      const resume = pause()
      resume()
    }
  })
  consumer.pause([{ topic: 'a', partitions: [0] }])
  consumer.resume([{ topic: 'a' }])
  const paused: Array<{ topic: string, partitions: number[] }> = consumer.paused()
  void paused
  consumer.seek({ topic: 'a', partition: 0, offset: '42' })
  await consumer.commitOffsets([{ topic: 'a', partition: 0, offset: '43', metadata: null }])
  await consumer.stop()
  await consumer.disconnect()
}

export async function administer (): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  const created: boolean = await admin.createTopics({ topics: [{ topic: 't', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '1000' }] }], waitForLeaders: true })
  void created
  const offsets = await admin.fetchTopicOffsets('t')
  const high: string = offsets[0].high
  void high
  await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 't' }], includeSynonyms: false })
  const acls = await admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourceName: 't', resourcePatternType: ResourcePatternTypes.LITERAL, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ALLOW, host: '*', principal: null })
  const principal: string = acls.resources[0].acls[0].principal
  void principal
  const { groups } = await admin.listGroups()
  await admin.deleteGroups(groups.map(g => g.groupId))
  const { brokers, controller } = await admin.describeCluster()
  void brokers; void controller
  await admin.disconnect()
}

void CompressionCodecs[CompressionTypes.LZ4]
void ConfigSource.DEFAULT_CONFIG
void AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['t'] })
new KafkaJSError('x', { retriable: true })
new KafkaJSProtocolError('x')
new KafkaJSNumberOfRetriesExceeded(new Error('x'), { retryCount: 1, retryTime: 2 })
new KafkaJSConnectionError('x', { broker: 'b:1', code: 'ECONNREFUSED' })
new KafkaJSRequestTimeoutError('x', { broker: 'b:1', correlationId: 1, createdAt: 0, sentAt: 0, pendingDuration: 0 })
new KafkaJSTopicMetadataNotLoaded('x', { topic: 't' })
new KafkaJSOffsetOutOfRange(new Error('x'), { topic: 't', partition: 0 })
const retriable: boolean = new KafkaJSNonRetriableError('x').retriable
void retriable
`

const misuse = `
import { Kafka } from 'DECLARATIONS'
const kafka = new Kafka({ brokers: ['localhost:9092'] })
kafka.producer().send({ topic: 't', messages: [{ key: 'k' }] })
`

function tsc (dir: string, file: string): void {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--strict', '--noEmit', '--target', 'es2022', '--module', 'commonjs', '--moduleResolution', 'node',
    '--types', 'node', '--typeRoots', path.join(root, 'node_modules', '@types'), file], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

test('kafkajs-typed code type-checks against kafkats/kafkajs\'s declarations with tsc --strict, and misuse is refused', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-kafkajs-types-'))
  try {
    fs.writeFileSync(path.join(dir, 'program.ts'), program.replace('DECLARATIONS', declarations))
    fs.writeFileSync(path.join(dir, 'misuse.ts'), misuse.replace('DECLARATIONS', declarations))
    try {
      tsc(dir, 'program.ts')
    } catch (error) {
      assert.fail(`tsc refused the kafkajs program:\n${(error as { stdout?: string }).stdout ?? String(error)}`)
    }
    assert.throws(() => tsc(dir, 'misuse.ts'), (error: { stdout?: string }) => /value/.test(error.stdout ?? ''), 'a message without value must not type-check')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
