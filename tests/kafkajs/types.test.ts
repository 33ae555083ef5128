// kafkats/kafkajs's published declarations accept kafkajs-typed code under `tsc --strict`:
// a program using the whole surface (client options, logCreator, events, producer and
// transactions, consumer with eachBatch helpers, admin, enums, error constructors) is
// type-checked against dist/kafkajs/index.d.ts, and a program that misuses it is refused.
// kafkajs 2.2.4's own declarations (npm kafkajs, a devDependency) are the reference: every name
// they export is exported, with a shape each way assignable, and a program written against
// them type-checks against kafkats/kafkajs too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { createRequire } from 'node:module'
import * as ts from 'typescript'

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
  const acls = await admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourceName: 't', resourcePatternType: ResourcePatternTypes.LITERAL, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ALLOW, host: '*' })
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

function tsc (dir: string, ...files: string[]): void {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--strict', '--noEmit', '--target', 'es2022', '--module', 'commonjs', '--moduleResolution', 'node',
    '--types', 'node', '--typeRoots', path.join(root, 'node_modules', '@types'), ...files], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

const kafkajsDeclarations = require.resolve('kafkajs/types/index.d.ts', { paths: [root] })

interface ExportedName { name: string, type: boolean, value: boolean, isClass: boolean, generic: boolean }

/** The names a declaration file exports, as the compiler sees them (kafkajs's file exports its undecorated top-level types too). */
function exportedNames (file: string): Map<string, ExportedName> {
  const program = ts.createProgram([file], { strict: true, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')] })
  const checker = program.getTypeChecker()
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  const names = new Map<string, ExportedName>()
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported
    const declaration = symbol.declarations?.[0] as { typeParameters?: unknown[] } | undefined
    names.set(exported.name, {
      name: exported.name,
      type: (symbol.flags & ts.SymbolFlags.Type) !== 0,
      value: (symbol.flags & ts.SymbolFlags.Value) !== 0,
      isClass: (symbol.flags & ts.SymbolFlags.Class) !== 0,
      generic: (declaration?.typeParameters?.length ?? 0) > 0
    })
  }
  return names
}

/**
 * Where kafkajs's declarations contradict themselves, kafkats/kafkajs types what kafkajs does:
 * KafkaJSStaleTopicMetadataAssignment's `unknownPartitions` is declared a number on the class
 * but given (and kept, at run time) as the PartitionMetadata[] its constructor's metadata declares.
 */
const CONTRADICTIONS = new Set(['instance KafkaJSStaleTopicMetadataAssignment'])

/**
 * A program that holds each kafkajs name's shape against kafkats/kafkajs's, each way for types
 * (kafkajs-typed values go in, kafkats/kafkajs's answers go out), `typeof` for values, the
 * instance and the constructor's parameters for classes.
 */
function shapeComparison (kafkajsNames: Map<string, ExportedName>): string {
  let source = `import * as K from 'kafkajs'\nimport * as O from '${declarations}'\ndeclare function given<T> (): T\n`
  for (const { name, type, value, isClass, generic } of kafkajsNames.values()) {
    if (isClass) {
      if (!CONTRADICTIONS.has(`instance ${name}`)) source += `export const instance${name}: K.${name} = given<O.${name}>()\n`
      source += `export const construct${name} = (...args: ConstructorParameters<typeof K.${name}>): O.${name} => new O.${name}(...args)\n`
    } else if (value) {
      source += `export const value${name}: typeof K.${name} = O.${name}\n`
    } else if (type && !generic) {
      source += `export const in${name}: O.${name} = given<K.${name}>()\nexport const out${name}: K.${name} = given<O.${name}>()\n`
    }
  }
  return source
}

/** Written against kafkajs's types: handlers, events, admin answers and errors, under their kafkajs names. */
const kafkajsProgram = `
import {
  Kafka, logLevel, CompressionTypes, ConfigResourceTypes, KafkaJSAggregateError, KafkaJSProtocolError,
  type Admin, type Consumer, type Producer, type EachMessageHandler, type EachBatchHandler, type EachMessagePayload, type KafkaMessage,
  type ITopicConfig, type ITopicMetadata, type SeekEntry, type TopicPartitionOffset, type GroupDescription, type ConsumerCrashEvent,
  type ConsumerGroupJoinEvent, type RequestEvent, type logCreator, type LogEntry, type DescribeConfigResponse, type DeleteGroupsResult,
  type ProducerRecord, type RecordMetadata, type IHeaders, type InstrumentationEvent, type PartitionAssigner, type Assigner
} from 'KAFKAJS'

const toConsole: logCreator = level => ({ namespace, label, log }: LogEntry) => { void level; void namespace; void label; void log.message; void log.timestamp }
const kafka = new Kafka({ brokers: ['localhost:9092'], logLevel: logLevel.INFO, logCreator: toConsole })

const handleMessage: EachMessageHandler = async ({ topic, partition, message, heartbeat, pause }: EachMessagePayload) => {
  const m: KafkaMessage = message
  const headers: IHeaders | undefined = m.headers
  void topic; void partition; void headers; void pause
  await heartbeat()
}
const handleBatch: EachBatchHandler = async ({ batch, resolveOffset }) => {
  for (const message of batch.messages) resolveOffset(message.offset)
}

const myAssigner: PartitionAssigner = ({ cluster, groupId, logger }): Assigner => ({
  name: 'mine',
  version: 1,
  assign: async ({ members, topics }) => { void cluster.findTopicPartitionMetadata(topics[0]); void groupId; logger.info('assigning'); return members.map(m => ({ memberId: m.memberId, memberAssignment: Buffer.alloc(0) })) },
  protocol: ({ topics }) => ({ name: 'mine', metadata: Buffer.from(topics.join(',')) })
})

export async function consume (): Promise<void> {
  const consumer: Consumer = kafka.consumer({ groupId: 'g', partitionAssigners: [myAssigner] })
  const off = consumer.on(consumer.events.CRASH, (event: ConsumerCrashEvent) => { const restart: boolean = event.payload.restart; void restart; void event.payload.error })
  consumer.on(consumer.events.GROUP_JOIN, (event: ConsumerGroupJoinEvent) => { const leader: string = event.payload.leaderId; void leader; void event.payload.memberAssignment })
  consumer.on(consumer.events.REQUEST, (event: RequestEvent) => { const api: string = event.payload.apiName; void api })
  consumer.on(consumer.events.FETCH, event => { const nodeId: number = event.payload.nodeId; void nodeId })
  off()
  await consumer.run({ eachMessage: handleMessage })
  await consumer.run({ eachBatch: handleBatch })
  const position: TopicPartitionOffset = { topic: 't', partition: 0, offset: '5' }
  consumer.seek(position)
  const group: GroupDescription = await consumer.describeGroup()
  const state: 'Stable' | 'Empty' | 'Dead' | 'Unknown' | 'PreparingRebalance' | 'CompletingRebalance' = group.state
  void state
}

export async function produce (): Promise<RecordMetadata[]> {
  const producer: Producer = kafka.producer()
  producer.on(producer.events.REQUEST_TIMEOUT, event => { void event.payload.broker })
  const record: ProducerRecord = { topic: 't', messages: [{ value: 'v' }], compression: CompressionTypes.None }
  return await producer.send(record)
}

export async function administer (admin: Admin = kafka.admin()): Promise<void> {
  admin.on(admin.events.CONNECT, (event: InstrumentationEvent<null>) => { void event.payload })
  const topic: ITopicConfig = { topic: 't', numPartitions: 3, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }
  try {
    await admin.createTopics({ topics: [topic] })
  } catch (error) {
    if (error instanceof KafkaJSAggregateError) for (const e of error.errors) if (e instanceof KafkaJSProtocolError) void e.type
  }
  const { topics }: { topics: ITopicMetadata[] } = await admin.fetchTopicMetadata({ topics: ['t'] })
  const leaders: number[] = topics[0].partitions.map(p => p.leader)
  const offsets: SeekEntry[] = await admin.fetchTopicOffsetsByTimestamp('t', Date.now())
  await admin.setOffsets({ groupId: 'g', topic: 't', partitions: offsets })
  const configs: DescribeConfigResponse = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 't' }], includeSynonyms: false })
  const message: string = configs.resources[0].errorMessage
  const deleted: DeleteGroupsResult[] = await admin.deleteGroups(['g'])
  void leaders; void message; void deleted
}
`

test('kafkats/kafkajs exports every name kafkajs 2.2.4\'s declarations export, and nothing kafkajs does not', { timeout: 120_000 }, () => {
  const kafkajsNames = exportedNames(kafkajsDeclarations)
  const ours = exportedNames(`${declarations}.d.ts`)
  const missing = [...kafkajsNames.keys()].filter(name => !ours.has(name))
  assert.deepEqual(missing, [], `kafkajs 2.2.4 exports ${kafkajsNames.size} names; kafkats/kafkajs lacks these`)
  // Beyond its declarations kafkajs exports error classes at run time (its index spreads them all): those, and only those, may be extra.
  const kafkajsRunTime = new Set(Object.keys(createRequire(path.join(root, 'package.json'))('kafkajs') as object))
  const extra = [...ours.keys()].filter(name => !kafkajsNames.has(name) && !kafkajsRunTime.has(name))
  assert.deepEqual(extra, [], 'names kafkajs does not export')
})

test('each kafkajs type has kafkajs\'s shape in kafkats/kafkajs, and a program written against kafkajs\'s types type-checks against kafkats/kafkajs', { timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-kafkajs-shapes-'))
  try {
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
    fs.writeFileSync(path.join(dir, 'shapes.ts'), shapeComparison(exportedNames(kafkajsDeclarations)))
    fs.writeFileSync(path.join(dir, 'on-kafkajs.ts'), kafkajsProgram.replace('KAFKAJS', 'kafkajs'))
    fs.writeFileSync(path.join(dir, 'on-kafkats.ts'), kafkajsProgram.replace('KAFKAJS', declarations))
    try {
      tsc(dir, 'shapes.ts', 'on-kafkajs.ts', 'on-kafkats.ts')
    } catch (error) {
      assert.fail(`tsc refused:\n${(error as { stdout?: string }).stdout ?? String(error)}`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

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
