/**
 * The real-Kafka harness: Apache Kafka 4.4.0 on 127.0.0.1, without Docker; any older
 * release from 0.11 on for compatibility tests, e.g. `startCluster({ version: '2.0.1' })`
 * (KRAFT_RELEASES and ZOOKEEPER_RELEASES list the ones the matrix runs, tests/compat/).
 *
 * - ensureKafkaJars(version) brings the broker jars with Maven into
 *   ~/.cache/kafkats/kafka-<version> (once per machine and version; a marker file says the
 *   copy finished). The pom is made per release (kafkaPom): Scala 2.12 before 2.4, a
 *   logging backend, and what an old broker lacks on Java 17.
 * - startCluster() formats KRaft storage in a temp dir and starts one combined
 *   broker+controller node, or three, then waits until every node answers ApiVersions and
 *   its Metadata lists every broker. Nodes can be paused (SIGSTOP), resumed, killed and
 *   restarted on the same log dir, which is what the fault tests need. In ZooKeeper mode
 *   (releases before 3.3 always, 3.3–3.9 with `mode: 'zookeeper'`) it first starts a
 *   ZooKeeper server (3.8, from Kafka 3.9's jars) on the controller port of node 1.
 * - sharedBootstrap() is how integration tests find the broker that tests/run.ts started.
 *
 * No broker may outlive the process that started it. Three things see to that:
 * cluster.stop(), a process 'exit' hook that SIGKILLs every broker still alive, and a
 * small shell wrapper around each JVM that kills it as soon as its stdin (a pipe held by
 * this process) closes, which also covers a harness killed by a signal.
 *
 * Ports: node N listens on portBase + (N - 1) * portStride and its controller on the port
 * after it. The defaults (19092, stride 10000) give 19092/19093, 29092/29093, 39092/39093;
 * `portBase: 'free'` picks unused ports, so a test cluster can run beside the shared node.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes, randomInt } from 'node:crypto'
import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Metadata } from '../../protocol/apis/metadata'
import { decodeResponseFrame, encodeRequestFrame } from '../../protocol/header'

export const KAFKA_VERSION = '4.4.0'
export const DEFAULT_PORT_BASE = 19092
export const DEFAULT_PORT_STRIDE = 10000
const HOST = '127.0.0.1'
const COMPLETE_MARKER = '.kafkats-complete'
const MIN_JAVA = 17

// ---------------------------------------------------------------------------------------
// Java, Maven and the jars

export function cacheRoot (): string {
  return process.env.KAFKATS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kafkats')
}

/** A release as Maven names it, e.g. '4.4.0', '2.0.1', '0.11.0.3'. */
export type KafkaVersion = string
export type MetadataMode = 'kraft' | 'zookeeper'

/** The releases the compatibility matrix runs in KRaft mode (3.3 was KRaft's first production release). */
export const KRAFT_RELEASES = ['3.3.2', '3.5.2', '3.7.2', '3.9.1', '4.0.1', '4.2.0', KAFKA_VERSION] as const
/** … and in ZooKeeper mode (which 4.0 removed). */
export const ZOOKEEPER_RELEASES = ['0.11.0.3', '1.1.1', '2.0.1', '2.1.1', '2.4.1', '2.8.2', '3.9.1'] as const
/** The release whose ZooKeeper (3.8) serves ZooKeeper-mode brokers (any broker's client speaks to it). */
const ZOOKEEPER_SERVER_RELEASE = '3.9.1'

/** A release's version as numbers, for comparisons: '2.0.1' → [2, 0, 1]. */
export function versionParts (version: KafkaVersion): number[] {
  if (!/^\d+(\.\d+)+$/.test(version)) throw new RangeError(`Kafka version must look like 4.4.0 or 0.11.0.3, not '${version}'`)
  return version.split('.').map(Number)
}

/** Whether `version` is at least `atLeast` (both as Maven names releases). */
export function isAtLeast (version: KafkaVersion, atLeast: string): boolean {
  const a = versionParts(version)
  const b = versionParts(atLeast)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  }
  return true
}

/** The metadata mode a release runs in unless told: KRaft from 3.3, ZooKeeper before. */
export function defaultMode (version: KafkaVersion): MetadataMode {
  return isAtLeast(version, '3.3') ? 'kraft' : 'zookeeper'
}

/** The broker artifact: Scala 2.13 builds exist from 2.4 on. */
function brokerArtifact (version: KafkaVersion): string {
  return isAtLeast(version, '2.4') ? 'kafka_2.13' : 'kafka_2.12'
}

export function kafkaJarDir (version: KafkaVersion = KAFKA_VERSION): string {
  return path.join(cacheRoot(), `kafka-${version}`)
}

/** The `-cp` value for the broker jars (of KAFKA_VERSION), with optional extra entries first. */
export function kafkaClasspath (...extra: string[]): string {
  return kafkaClasspathOf(KAFKA_VERSION, ...extra)
}

export function kafkaClasspathOf (version: KafkaVersion, ...extra: string[]): string {
  return [...extra, path.join(kafkaJarDir(version), '*')].join(path.delimiter)
}

/** The repository root (the folder with package.json), from either tests/ or dist/tests/. */
export function repoRoot (): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'tests', 'broker', 'pom.xml'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`Cannot find the kafkats repository above ${__dirname}`)
  }
}

interface RunResult { code: number | null, stdout: string, stderr: string, missing: boolean }

function run (command: string, args: string[], options: { cwd?: string, timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise(resolve => {
    execFile(command, args, { cwd: options.cwd, timeout: options.timeoutMs ?? 0, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null
      resolve({ code, stdout: String(stdout), stderr: String(stderr), missing: (error as NodeJS.ErrnoException | null)?.code === 'ENOENT' })
    })
  })
}

/** Java's major version, or an error that says what to install. */
export async function requireJava (): Promise<number> {
  const install = 'Install a JDK 17 or newer (e.g. `apt-get install openjdk-17-jdk-headless` or `brew install openjdk@17`) and put `java` on the PATH.'
  const result = await run('java', ['-version'])
  if (result.missing) throw new Error(`The Kafka ${KAFKA_VERSION} broker needs Java ${MIN_JAVA}+, and \`java\` was not found. ${install}`)
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr + result.stdout)
  if (match === null) throw new Error(`Could not read the Java version from \`java -version\`:\n${result.stderr}${result.stdout}`)
  // Java 8 and older report themselves as 1.x.
  const major = match[1] === '1' ? Number(match[2]) : Number(match[1])
  if (major < MIN_JAVA) throw new Error(`The Kafka ${KAFKA_VERSION} broker needs Java ${MIN_JAVA}+, and \`java\` is Java ${major}. ${install}`)
  return major
}

export async function requireMaven (): Promise<void> {
  const result = await run('mvn', ['-v'])
  if (result.missing || result.code !== 0) {
    throw new Error(`Fetching the Kafka ${KAFKA_VERSION} jars needs Maven (\`mvn\`), which was not found. Install Maven 3 (e.g. \`apt-get install maven\` or \`brew install maven\`), or run this once on a machine that has it and copy ${kafkaJarDir()}.`)
  }
}

/**
 * The folder holding every Kafka jar, fetched with Maven the first time. The marker file
 * holds a hash of tests/broker/pom.xml, so changing the pom fetches again. Maven copies
 * into a fresh folder that then replaces the old one, so no stale jar stays on the
 * classpath. A lock folder keeps two processes (parallel test files) from fetching at once.
 */
export async function ensureKafkaJars (version: KafkaVersion = KAFKA_VERSION): Promise<string> {
  versionParts(version)
  const defaultPom = await fsp.readFile(path.join(repoRoot(), 'tests', 'broker', 'pom.xml'), 'utf8')
  const required = [`${brokerArtifact(version)}-${version}.jar`, `kafka-clients-${version}.jar`, ...(withPerfTools(version) ? [`kafka-tools-${version}.jar`] : [])]
  return await ensureJars(`kafka-${version}`, `the Apache Kafka ${version} jars`, kafkaPom(version, defaultPom), required)
}

/**
 * Releases fetched with tests/broker/pom.xml naming them (the broker, the Java client's
 * perf tools, log4j2): KAFKA_VERSION, and 3.9 (whose ZooKeeper serves ZooKeeper mode).
 * Others get the broker alone: not every release's Connect jars, which the tools bring,
 * are in the Maven registry this project reaches (4.0.1's are not).
 */
function withPerfTools (version: KafkaVersion): boolean {
  return version === KAFKA_VERSION || (isAtLeast(version, '3.9') && !isAtLeast(version, '4.0'))
}

/**
 * The pom that brings a release's jars: tests/broker/pom.xml naming it (withPerfTools), or
 * the broker with log4j2 (4.x, as Kafka 4 logs) or, before, the broker (Scala 2.12 before
 * 2.4) with log4j 1.2.17 behind SLF4J 1.7, as their distributions shipped (reload4j lacks
 * the MDC field slf4j's Java 9 fix reads, which broke the ZooKeeper client), and what Java 17 lacks for them: jaxb-api for 0.11
 * (javax.xml.bind left the JDK in 11), the ZooKeeper 3.5 client for 2.0–2.1 (their 3.4.13
 * client fails to connect on Java 17; 3.5 speaks the same protocol).
 */
export function kafkaPom (version: KafkaVersion, defaultPom: string): string {
  if (withPerfTools(version)) return version === KAFKA_VERSION ? defaultPom : defaultPom.replaceAll(`<version>${KAFKA_VERSION}</version>`, `<version>${version}</version>`)
  const dependency = (group: string, artifact: string, v: string): string =>
    `    <dependency><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${v}</version></dependency>\n`
  if (isAtLeast(version, '4.0')) {
    // The logging dependencies of tests/broker/pom.xml (see the comment there).
    const logging = [...defaultPom.matchAll(/<dependency>\s*<groupId>(org\.slf4j|org\.apache\.logging\.log4j)<\/groupId>\s*<artifactId>([^<]+)<\/artifactId>\s*<version>([^<]+)<\/version>\s*<\/dependency>/g)]
    return pomOf(`kafka-${version}`, dependency('org.apache.kafka', 'kafka_2.13', version) + logging.map(([, group, artifact, v]) => dependency(group, artifact, v)).join(''))
  }
  let dependencies = dependency('org.apache.kafka', brokerArtifact(version), version) + dependency('org.slf4j', 'slf4j-log4j12', '1.7.30')
  if (!isAtLeast(version, '1.0')) dependencies += dependency('javax.xml.bind', 'jaxb-api', '2.3.1')
  if (isAtLeast(version, '2.0') && !isAtLeast(version, '2.2')) dependencies += dependency('org.apache.zookeeper', 'zookeeper', '3.5.9')
  return pomOf(`kafka-${version}`, dependencies)
}

function pomOf (name: string, dependencies: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Made by tests/broker/kafka.ts for ${name}; only its dependencies' jars are used. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkats</groupId>
  <artifactId>${name}-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}  </dependencies>
</project>
`
}

/** The ZooKeeper server's jars (ZooKeeper-mode clusters): Kafka 3.9's, as its zookeeper-server-start.sh runs it. */
async function ensureZooKeeperJars (): Promise<string> {
  return await ensureKafkaJars(ZOOKEEPER_SERVER_RELEASE)
}

/** `name`'s folder under the cache with every jar `pom` brings, fetched once (see ensureKafkaJars). */
async function ensureJars (name: string, what: string, pom: string, requiredJars: string[]): Promise<string> {
  const dir = path.join(cacheRoot(), name)
  const marker = path.join(dir, COMPLETE_MARKER)
  const pomHash = createHash('sha256').update(pom).digest('hex')
  const isComplete = (): boolean => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === pomHash
  if (isComplete()) return dir
  await requireJava()
  await requireMaven()
  await fsp.mkdir(cacheRoot(), { recursive: true })
  await withLock(`${dir}.lock`, async () => {
    if (isComplete()) return
    // Maven runs on a copy of the pom beside the cache, so nothing is written into the repository.
    const pomDir = path.join(cacheRoot(), `pom-${name.replace(/^kafka-/, '')}`)
    await fsp.mkdir(pomDir, { recursive: true })
    await fsp.writeFile(path.join(pomDir, 'pom.xml'), pom)
    const fresh = `${dir}.fetching`
    await fsp.rm(fresh, { recursive: true, force: true })
    process.stderr.write(`kafkats: fetching ${what} into ${dir} …\n`)
    const result = await run('mvn', ['-q', '-B', '-f', path.join(pomDir, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${fresh}`], { cwd: pomDir })
    if (result.code !== 0) {
      throw new Error(`\`mvn dependency:copy-dependencies\` failed (exit ${String(result.code)}) while fetching ${what}:\n${tail(result.stdout + result.stderr, 60)}`)
    }
    for (const jar of requiredJars) {
      if (!fs.existsSync(path.join(fresh, jar))) throw new Error(`Maven finished but ${jar} is not in ${fresh}`)
    }
    await fsp.writeFile(path.join(fresh, COMPLETE_MARKER), `${pomHash}\n`)
    await fsp.rm(dir, { recursive: true, force: true })
    await fsp.rename(fresh, dir)
  })
  return dir
}

async function withLock (lockDir: string, body: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      await fsp.mkdir(lockDir)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    // Someone else holds it: wait, unless its owner died and left it behind.
    const owner = Number(await fsp.readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => 'NaN'))
    if (Number.isInteger(owner) && !isAlive(owner)) await fsp.rm(lockDir, { recursive: true, force: true })
    else await sleep(500)
  }
  try {
    await fsp.writeFile(path.join(lockDir, 'pid'), String(process.pid))
    await body()
  } finally {
    await fsp.rm(lockDir, { recursive: true, force: true })
  }
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

// ---------------------------------------------------------------------------------------
// The cluster

export interface ClusterOptions {
  nodes?: 1 | 3
  /** The Kafka release to run (default KAFKA_VERSION); older ones get only the settings they know. */
  version?: KafkaVersion
  /** KRaft (3.3+, the default there) or ZooKeeper (before 4.0, the default before 3.3). */
  mode?: MetadataMode
  /** Port of node 1's listener (default 19092), or 'free' to pick unused ports. */
  portBase?: number | 'free'
  /** Distance between the ports of node N and N+1 (default 10000; 2 with portBase 'free'). */
  portStride?: number
  /**
   * Feature levels set when formatting storage, e.g. { 'eligible.leader.replicas.version': 0 }
   * (with ELR, KIP-966, a 4.x leader keeps its high watermark while the ISR is below
   * min.insync.replicas, so waiting produces time out instead of ending in
   * NOT_ENOUGH_REPLICAS_AFTER_APPEND).
   */
  features?: Record<string, number>
  /** server.properties entries for every node, applied after the defaults. */
  brokerOverrides?: Record<string, string | number | boolean>
  /** How long to wait for the cluster to come up (default 120 s). */
  startTimeoutMs?: number
  /** Called when a node's JVM ends without the harness asking (a crash, a bad config). */
  onUnexpectedExit?: (node: KafkaNode, code: number | null) => void
  /** Secured listeners besides PLAINTEXT (one node only): see SecurityOptions. */
  security?: SecurityOptions
}

export interface KafkaNode {
  readonly nodeId: number
  readonly host: string
  readonly port: number
  readonly controllerPort: number
  /** The JVM's pid (changes on restart); -1 while the node is down. */
  readonly pid: number
  readonly state: NodeState
  readonly logFile: string
  /** SIGSTOP: the broker stops answering but keeps its sockets, like a long GC pause. */
  pause: () => void
  /** SIGCONT after pause(). */
  resume: () => void
  /** SIGKILL; resolves when the JVM is gone. */
  kill: () => Promise<void>
  /** Stops the node if it runs, starts it again on the same log dir, and waits until the cluster lists it. */
  restart: () => Promise<void>
  /** Controlled shutdown (SIGTERM, SIGKILL after 30 s). */
  stop: () => Promise<void>
}

export type NodeState = 'running' | 'paused' | 'down'

export interface KafkaCluster {
  readonly bootstrap: string[]
  /** With `security`: the secured listeners' addresses and the TLS files made for them. */
  readonly secured?: SecuredListeners
  readonly nodes: KafkaNode[]
  /** The temp dir with every node's config, data and log (removed by stop()). */
  readonly dir: string
  readonly version: KafkaVersion
  readonly mode: MetadataMode
  node: (nodeId: number) => KafkaNode
  /** Waits until every running node answers and lists every running node. */
  waitUntilReady: (timeoutMs?: number) => Promise<void>
  /** Ends every JVM (resuming paused ones first) and removes the temp dir. */
  stop: () => Promise<void>
}

/** The bootstrap of the broker tests/run.ts started (KAFKA_BOOTSTRAP), if any. */
export function sharedBootstrap (): string[] | undefined {
  const servers = (process.env.KAFKA_BOOTSTRAP ?? '').split(',').map(s => s.trim()).filter(s => s !== '')
  return servers.length === 0 ? undefined : servers
}

/** Every node of this process that may still run, and every cluster not stopped, for the exit hook. */
const liveNodes = new Set<{ killNow: () => void }>()
const liveClusters = new Set<Cluster>()
let exitHookInstalled = false

function installExitHook (): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const node of liveNodes) node.killNow()
    for (const cluster of liveClusters) {
      try {
        fs.rmSync(cluster.dir, { recursive: true, force: true })
      } catch {}
    }
  })
}

export async function startCluster (options: ClusterOptions = {}): Promise<KafkaCluster> {
  const count = options.nodes ?? 1
  if (count !== 1 && count !== 3) throw new Error(`A test cluster has 1 or 3 nodes, not ${String(count)}`)
  const version = options.version ?? KAFKA_VERSION
  const mode = options.mode ?? defaultMode(version)
  if (mode === 'kraft' && !isAtLeast(version, '3.3')) throw new RangeError(`Kafka ${version} has no production KRaft mode (3.3 and later have): use mode 'zookeeper'`)
  if (mode === 'zookeeper' && isAtLeast(version, '4.0')) throw new RangeError(`Kafka ${version} has no ZooKeeper mode (4.0 removed it): use mode 'kraft'`)
  await requireJava()
  await ensureKafkaJars(version)
  const zooKeeperJars = mode === 'zookeeper' ? await ensureZooKeeperJars() : undefined
  installExitHook()
  const { base, stride } = await choosePorts(count, options)
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'kafkats-kafka-'))
  const log4j = path.join(dir, 'log4j2.properties')
  await fsp.writeFile(log4j, LOG4J_PROPERTIES)
  // Releases before 3.9 log through log4j 1 (reload4j).
  await fsp.writeFile(path.join(dir, 'log4j.properties'), LOG4J1_PROPERTIES)
  const clusterId = newClusterId()
  const ids = Array.from({ length: count }, (_, i) => i + 1)
  const voters = ids.map(id => `${id}@${HOST}:${base + (id - 1) * stride + 1}`).join(',')

  const cluster = new Cluster(dir, options.startTimeoutMs ?? 120_000, version, mode)
  let security: SecuritySetup | undefined
  if (options.security !== undefined) {
    if (count !== 1) throw new Error('Secured listeners are set up on one-node clusters only')
    if (mode !== 'kraft' || version !== KAFKA_VERSION) throw new Error(`Secured listeners are set up on Kafka ${KAFKA_VERSION} in KRaft mode only`)
    security = await setUpSecurity(dir, base, options.security)
    cluster.secured = security.listeners
  }
  for (const id of ids) {
    const port = base + (id - 1) * stride
    const nodeDir = path.join(dir, `node-${id}`)
    await fsp.mkdir(nodeDir)
    const metadata = mode === 'kraft' ? { voters } : { zooKeeper: `${HOST}:${base + 1}` }
    const properties = serverProperties(version, id, port, metadata, path.join(nodeDir, 'data'), count, { ...security?.properties(port), ...options.brokerOverrides })
    const propertiesFile = path.join(nodeDir, 'server.properties')
    await fsp.writeFile(propertiesFile, properties)
    cluster.nodes.push(new BrokerNode(cluster, version, id, port, nodeDir, propertiesFile, log4j, count === 1 ? '1G' : '512M', options.onUnexpectedExit))
  }
  try {
    if (zooKeeperJars !== undefined) {
      cluster.zooKeeper = await startZooKeeper(zooKeeperJars, dir, base + 1, cluster.startTimeoutMs)
    } else {
      await Promise.all(cluster.nodes.map(node => formatStorage(version, clusterId, node.propertiesFile, log4j, options.features ?? {}, security?.formatArgs ?? [])))
    }
    await Promise.all(cluster.nodes.map(node => node.launch()))
    await cluster.waitUntilReady(cluster.startTimeoutMs)
  } catch (error) {
    await cluster.stop()
    throw error
  }
  return cluster
}

const LOG4J_PROPERTIES = `# Written by the kafkats test harness: warnings and errors only, to the node's log file.
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = STDOUT
`

const LOG4J1_PROPERTIES = `# Written by the kafkats test harness (log4j 1 / reload4j: Kafka before 3.9, ZooKeeper).
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`

function serverProperties (version: KafkaVersion, nodeId: number, port: number, metadata: { voters: string } | { zooKeeper: string }, dataDir: string, count: number, overrides: Record<string, string | number | boolean>): string {
  const replication = count === 1 ? 1 : 3
  const minIsr = count === 1 ? 1 : 2
  const settings: Record<string, string | number | boolean> = {
    ...('voters' in metadata
      ? {
          'process.roles': 'broker,controller',
          'node.id': nodeId,
          'controller.quorum.voters': metadata.voters,
          listeners: `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${port + 1}`,
          'inter.broker.listener.name': 'PLAINTEXT',
          'controller.listener.names': 'CONTROLLER',
          'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT'
        }
      : {
          'broker.id': nodeId,
          'zookeeper.connect': metadata.zooKeeper,
          'zookeeper.connection.timeout.ms': 60_000,
          // Off by default before 1.0: DeleteTopics then waits out its timeout.
          'delete.topic.enable': true,
          listeners: `PLAINTEXT://${HOST}:${port}`
        }),
    'advertised.listeners': `PLAINTEXT://${HOST}:${port}`,
    'log.dirs': dataDir,
    'offsets.topic.replication.factor': replication,
    'offsets.topic.num.partitions': 3,
    'transaction.state.log.replication.factor': replication,
    'transaction.state.log.min.isr': minIsr,
    // Share groups (KIP-932) came after 3.9.
    // share.version is on by default for a 4.4 cluster; the shorter timings below (defaults:
    // heartbeat 5 s, session 45 s, lock duration at least 15 s) let share tests fence and
    // redeliver in seconds, and a group may set share.record.lock.duration.ms down to 1 s.
    ...(version === KAFKA_VERSION
      ? {
          'share.coordinator.state.topic.replication.factor': replication,
          'share.coordinator.state.topic.min.isr': minIsr,
          'group.share.min.heartbeat.interval.ms': 500,
          'group.share.heartbeat.interval.ms': 500,
          'group.share.min.session.timeout.ms': 6000,
          'group.share.session.timeout.ms': 10000,
          'group.share.min.record.lock.duration.ms': 1000
        }
      : {}),
    'group.initial.rebalance.delay.ms': 0,
    // KIP-848 groups: the broker sets heartbeat interval and session timeout. Shorter than
    // the defaults (5 s, 45 s) so fencing tests run in seconds.
    'group.consumer.min.heartbeat.interval.ms': 500,
    'group.consumer.heartbeat.interval.ms': 500,
    'group.consumer.min.session.timeout.ms': 6000,
    'group.consumer.session.timeout.ms': 10000,
    // A stopped follower leaves the ISR after this long (default 30 s); fault tests wait for it.
    ...(count > 1 ? { 'replica.lag.time.max.ms': 5000 } : {}),
    ...overrides
  }
  return Object.entries(settings).map(([key, value]) => `${key}=${String(value)}`).join('\n') + '\n'
}

async function formatStorage (version: KafkaVersion, clusterId: string, propertiesFile: string, log4j: string, features: Record<string, number>, extraArgs: string[]): Promise<void> {
  const featureArgs = Object.entries(features).flatMap(([name, level]) => ['--feature', `${name}=${level}`])
  const result = await run('java', ['-Xmx256M', `-Dlog4j2.configurationFile=${log4j}`, '-cp', kafkaClasspathOf(version), 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile, ...featureArgs, ...extraArgs], { timeoutMs: 120_000 })
  if (result.code !== 0) throw new Error(`Formatting KRaft storage failed (exit ${String(result.code)}) for ${propertiesFile}:\n${tail(result.stdout + result.stderr, 40)}`)
}

/** A Kafka cluster id: 16 random bytes in URL-safe base64, as Kafka's Uuid prints them. */
function newClusterId (): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

async function choosePorts (count: number, options: ClusterOptions): Promise<{ base: number, stride: number }> {
  if (options.portBase !== 'free') {
    const base = options.portBase ?? DEFAULT_PORT_BASE
    const stride = options.portStride ?? DEFAULT_PORT_STRIDE
    if (base < 1024 || base + (count - 1) * stride + 1 > 65535) throw new Error(`Ports from ${base} with stride ${stride} do not fit ${count} node(s)`)
    // Else the readiness check could be answered by whatever already listens there.
    for (const port of clusterPorts(base, stride, count)) {
      if (!await isPortFree(port)) throw new Error(`Port ${port} on ${HOST} is in use (another Kafka still running?); stop it or pick other ports (portBase, or --port-base free)`)
    }
    return { base, stride }
  }
  const stride = options.portStride ?? 2
  // Below the usual ephemeral range (32768+), so an outgoing connection cannot take them meanwhile.
  const highest = 32000 - (count - 1) * stride - 1
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = randomInt(12000, highest)
    if ((await Promise.all(clusterPorts(base, stride, count).map(isPortFree))).every(Boolean)) return { base, stride }
  }
  throw new Error('Found no free ports for a Kafka test cluster')
}

function clusterPorts (base: number, stride: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => [base + i * stride, base + i * stride + 1]).flat()
}

function acceptsConnections (port: number): Promise<boolean> {
  return new Promise(resolve => {
    const socket = net.connect({ host: HOST, port })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => { socket.destroy(); resolve(false) })
  })
}

function isPortFree (port: number): Promise<boolean> {
  return new Promise(resolve => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen(port, HOST, () => server.close(() => resolve(true)))
  })
}

class Cluster implements KafkaCluster {
  readonly nodes: BrokerNode[] = []
  secured: SecuredListeners | undefined
  readonly dir: string
  readonly startTimeoutMs: number
  #stopped = false

  readonly version: KafkaVersion
  readonly mode: MetadataMode
  /** ZooKeeper mode: the ZooKeeper server, stopped after the brokers. */
  zooKeeper: JvmProcess | undefined

  constructor (dir: string, startTimeoutMs: number, version: KafkaVersion, mode: MetadataMode) {
    this.dir = dir
    this.startTimeoutMs = startTimeoutMs
    this.version = version
    this.mode = mode
    liveClusters.add(this)
  }

  get bootstrap (): string[] {
    return this.nodes.map(node => `${node.host}:${node.port}`)
  }

  node (nodeId: number): KafkaNode {
    const node = this.nodes.find(n => n.nodeId === nodeId)
    if (node === undefined) throw new Error(`No node ${nodeId} in this cluster`)
    return node
  }

  async waitUntilReady (timeoutMs = this.startTimeoutMs): Promise<void> {
    const running = this.nodes.filter(node => node.state === 'running')
    await waitForNodes(running, running.map(node => node.nodeId), timeoutMs)
  }

  async stop (): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    // The data is thrown away, so there is no point in a controlled shutdown.
    await Promise.all(this.nodes.map(node => node.kill()))
    await this.zooKeeper?.kill()
    await fsp.rm(this.dir, { recursive: true, force: true, maxRetries: 3 })
    liveClusters.delete(this)
  }
}

/**
 * Each JVM runs under this wrapper. It prints the JVM's pid, then holds the read end of
 * its stdin, a pipe from the harness: once the harness is gone, however it went, the read
 * ends and the broker is killed. It exits with the JVM's exit status.
 */
const WRAPPER = `exec 3<&0 </dev/null
"$@" >>"$KAFKATS_BROKER_LOG" 2>&1 3<&- &
broker=$!
echo "$broker"
( read -r _ <&3; kill -9 "$broker" 2>/dev/null ) &
watchdog=$!
exec 3<&-
wait "$broker" 2>/dev/null
code=$?
kill "$watchdog" 2>/dev/null
exit "$code"
`

/** Starts `java javaArgs` under WRAPPER, its output appended to `logFile`; unref'd (see BrokerNode.launch). */
function spawnJvm (javaArgs: string[], logFile: string): ChildProcess {
  const wrapper = spawn('sh', ['-c', WRAPPER, 'kafka-node', 'java', ...javaArgs], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, KAFKATS_BROKER_LOG: logFile }
  })
  wrapper.unref()
  unrefStream(wrapper.stdin)
  return wrapper
}

/** The JVM's pid, which the wrapper prints first. */
function jvmPid (wrapper: ChildProcess, what: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer): void => {
      text += chunk.toString()
      const newline = text.indexOf('\n')
      if (newline === -1) return
      wrapper.stdout!.off('data', onData)
      wrapper.stdout!.resume()
      unrefStream(wrapper.stdout)
      resolve(Number(text.slice(0, newline)))
    }
    wrapper.stdout!.on('data', onData)
    wrapper.once('error', reject)
    wrapper.once('exit', code => reject(new Error(`The wrapper of ${what} exited (${String(code)}) before starting Java`)))
  })
}

/** Both logging backends' settings: log4j2 (Kafka 3.9+) and log4j 1 (older releases, ZooKeeper), files beside `log4j2`. */
function logConfigArgs (log4j2: string): string[] {
  return [`-Dlog4j2.configurationFile=${log4j2}`, `-Dlog4j.configuration=file:${path.join(path.dirname(log4j2), 'log4j.properties')}`]
}

/** A JVM other than a broker under WRAPPER: the ZooKeeper server. */
class JvmProcess {
  readonly #exited: Promise<void>
  #pid: number

  constructor (pid: number, exited: Promise<void>) {
    this.#pid = pid
    this.#exited = exited
  }

  killNow (): void {
    if (this.#pid <= 0) return
    try {
      process.kill(this.#pid, 'SIGKILL')
    } catch {}
    this.#pid = -1
  }

  async kill (): Promise<void> {
    this.killNow()
    await keepAliveUntil(this.#exited)
  }
}

/** A standalone ZooKeeper server on `port` (no admin server: it would take port 8080), ready when it takes connections. */
async function startZooKeeper (jarDir: string, clusterDir: string, port: number, timeoutMs: number): Promise<JvmProcess> {
  const zkDir = path.join(clusterDir, 'zookeeper')
  await fsp.mkdir(zkDir)
  const logFile = path.join(zkDir, 'zookeeper.log')
  const wrapper = spawnJvm(['-Xmx256M', '-Dzookeeper.admin.enableServer=false', ...logConfigArgs(path.join(clusterDir, 'log4j2.properties')),
    '-cp', path.join(jarDir, '*'), 'org.apache.zookeeper.server.ZooKeeperServerMain', String(port), path.join(zkDir, 'data')], logFile)
  let running = true
  const exited = new Promise<void>(resolve => wrapper.once('exit', () => { running = false; wrapper.stdin?.destroy(); resolve() }))
  const zooKeeper = new JvmProcess(await jvmPid(wrapper, 'ZooKeeper'), exited)
  liveNodes.add(zooKeeper)
  void exited.then(() => liveNodes.delete(zooKeeper))
  const deadline = Date.now() + timeoutMs
  while (!await acceptsConnections(port)) {
    if (!running || Date.now() > deadline) {
      zooKeeper.killNow()
      const log = await fsp.readFile(logFile, 'utf8').catch(() => '(no log)')
      throw new Error(`ZooKeeper ${running ? `did not listen on ${HOST}:${port} within ${Math.round(timeoutMs / 1000)} s` : 'exited while starting'}; the end of its log (${logFile}):\n${tail(log, 30)}`)
    }
    await sleep(200)
  }
  return zooKeeper
}

class BrokerNode implements KafkaNode {
  readonly host = HOST
  readonly nodeId: number
  readonly port: number
  readonly controllerPort: number
  readonly propertiesFile: string
  readonly logFile: string
  readonly #cluster: Cluster
  readonly #version: KafkaVersion
  readonly #log4j: string
  readonly #heap: string
  readonly #onUnexpectedExit: ClusterOptions['onUnexpectedExit']
  // Set by launch(), cleared when the wrapper exits; #expectExit is set before the harness ends the JVM.
  #wrapper: ChildProcess | undefined
  #pid = -1
  #paused = false
  #expectExit = false
  #exited: Promise<void> = Promise.resolve()

  constructor (cluster: Cluster, version: KafkaVersion, nodeId: number, port: number, dir: string, propertiesFile: string, log4j: string, heap: string, onUnexpectedExit: ClusterOptions['onUnexpectedExit']) {
    this.#cluster = cluster
    this.#version = version
    this.nodeId = nodeId
    this.port = port
    this.controllerPort = port + 1
    this.propertiesFile = propertiesFile
    this.logFile = path.join(dir, 'broker.log')
    this.#log4j = log4j
    this.#heap = heap
    this.#onUnexpectedExit = onUnexpectedExit
  }

  get pid (): number {
    return this.#pid
  }

  get state (): NodeState {
    if (this.#wrapper === undefined) return 'down'
    return this.#paused ? 'paused' : 'running'
  }

  /** Starts the JVM and resolves once its pid is known (not when it is ready). */
  async launch (): Promise<void> {
    if (this.#wrapper !== undefined) throw new Error(`Kafka node ${this.nodeId} is already running`)
    const javaArgs = [
      `-Xmx${this.#heap}`, `-Xms${this.#heap}`, '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Djava.awt.headless=true',
      ...logConfigArgs(this.#log4j), '-cp', kafkaClasspathOf(this.#version), 'kafka.Kafka', this.propertiesFile
    ]
    fs.appendFileSync(this.logFile, `--- kafkats: starting node ${this.nodeId} at ${new Date().toISOString()}\n`)
    const wrapper = spawnJvm(javaArgs, this.logFile)
    this.#wrapper = wrapper
    this.#expectExit = false
    this.#paused = false
    liveNodes.add(this)
    // Once the pid is read, nothing here keeps the event loop alive: a test that forgets
    // stop() still exits, and the exit hook kills the JVM (spawnJvm unref'd the wrapper).
    this.#exited = new Promise(resolve => {
      wrapper.once('exit', code => {
        this.#wrapper = undefined
        this.#pid = -1
        this.#paused = false
        liveNodes.delete(this)
        wrapper.stdin?.destroy()
        if (!this.#expectExit) this.#onUnexpectedExit?.(this, code)
        resolve()
      })
    })
    this.#pid = await jvmPid(wrapper, `Kafka node ${this.nodeId}`)
  }

  pause (): void {
    if (this.state !== 'running') throw new Error(`Kafka node ${this.nodeId} is ${this.state}, so it cannot be paused`)
    process.kill(this.#pid, 'SIGSTOP')
    this.#paused = true
  }

  resume (): void {
    if (this.state !== 'paused') return
    process.kill(this.#pid, 'SIGCONT')
    this.#paused = false
  }

  /** SIGKILL without waiting (the exit hook uses this; it cannot await). */
  killNow (): void {
    if (this.#pid <= 0) return
    this.#expectExit = true
    try {
      process.kill(this.#pid, 'SIGKILL')
    } catch {}
  }

  async kill (): Promise<void> {
    this.killNow()
    await keepAliveUntil(this.#exited)
  }

  async stop (): Promise<void> {
    if (this.#wrapper === undefined) return
    this.#expectExit = true
    this.resume()
    try {
      process.kill(this.#pid, 'SIGTERM')
    } catch {}
    // The timer also keeps the event loop alive until the exit is seen.
    const timer = setTimeout(() => this.killNow(), 30_000)
    await this.#exited
    clearTimeout(timer)
  }

  async restart (): Promise<void> {
    await this.stop()
    await this.launch()
    // Ready when it answers and every other node that can answer lists it again.
    const answering = this.#cluster.nodes.filter(node => node.state === 'running')
    await waitForNodes(answering, [this.nodeId], this.#cluster.startTimeoutMs)
  }

  logTail (lines = 40): string {
    try {
      const size = fs.statSync(this.logFile).size
      const fd = fs.openSync(this.logFile, 'r')
      try {
        const length = Math.min(size, 16 * 1024)
        const buffer = Buffer.alloc(length)
        fs.readSync(fd, buffer, 0, length, size - length)
        return tail(buffer.toString(), lines)
      } finally {
        fs.closeSync(fd)
      }
    } catch {
      return '(no log)'
    }
  }
}

// ---------------------------------------------------------------------------------------
// Security: SASL and TLS listeners beside PLAINTEXT, certificates made at start

export interface SecurityOptions {
  /** Users for PLAIN (in the broker's JAAS config) and SCRAM-SHA-256/512 (added when formatting): name → password. */
  users: Record<string, string>
  /** Principals allowed everything, e.g. ['User:admin']. User:ANONYMOUS (the PLAINTEXT and controller listeners) always is. */
  superUsers?: string[]
  /** StandardAuthorizer with ACLs (default false: everything is allowed). */
  authorizer?: boolean
  /** connections.max.reauth.ms: SASL sessions end after this, unless re-authenticated (KIP-368). */
  reauthMs?: number
  /** A delegation.token.secret.key, so delegation tokens can be created. */
  delegationTokens?: boolean
}

export interface SecuredListeners {
  /** SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER with the broker's unsecured JWS validator) without and with TLS. */
  saslPlaintext: string
  saslSsl: string
  /** TLS without client certificates, and TLS that requires one (ssl.client.auth=required). */
  ssl: string
  mtls: string
  /** PEM: the CA that signed the broker's certificate (for 127.0.0.1 and localhost), and a client certificate it signed. */
  ca: string
  clientCert: string
  clientKey: string
  /** The client certificate's principal on the mTLS listener. */
  clientPrincipal: string
}

interface SecuritySetup {
  listeners: SecuredListeners
  properties: (plaintextPort: number) => Record<string, string | number | boolean>
  formatArgs: string[]
}

const SECURED_LISTENERS = ['SASL_PLAINTEXT', 'SASL_SSL', 'SSL', 'MTLS'] as const

async function setUpSecurity (dir: string, plaintextPort: number, options: SecurityOptions): Promise<SecuritySetup> {
  const tls = await makeCertificates(path.join(dir, 'tls'))
  const ports: number[] = []
  for (let port = plaintextPort + 2; ports.length < SECURED_LISTENERS.length && port < 65535; port++) {
    if (await isPortFree(port)) ports.push(port)
  }
  const address = (i: number): string => `${HOST}:${ports[i]}`
  const jaasValue = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
  const plainUsers = Object.entries(options.users).map(([user, password]) => `user_${user}=${jaasValue(password)}`).join(' ')
  const mechanisms = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER']
  const properties = (port: number): Record<string, string | number | boolean> => {
    const settings: Record<string, string | number | boolean> = {
      listeners: [`PLAINTEXT://${HOST}:${port}`, `CONTROLLER://${HOST}:${port + 1}`, ...SECURED_LISTENERS.map((name, i) => `${name}://${address(i)}`)].join(','),
      'advertised.listeners': [`PLAINTEXT://${HOST}:${port}`, ...SECURED_LISTENERS.map((name, i) => `${name}://${address(i)}`)].join(','),
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,MTLS:SSL',
      'sasl.enabled.mechanisms': mechanisms.join(','),
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': tls.serverPemFile,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': tls.caFile,
      'listener.name.mtls.ssl.client.auth': 'required',
      'super.users': ['User:ANONYMOUS', ...(options.superUsers ?? [])].join(';')
    }
    for (const listener of ['sasl_plaintext', 'sasl_ssl']) {
      settings[`listener.name.${listener}.plain.sasl.jaas.config`] = `org.apache.kafka.common.security.plain.PlainLoginModule required ${plainUsers};`
      settings[`listener.name.${listener}.scram-sha-256.sasl.jaas.config`] = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'
      settings[`listener.name.${listener}.scram-sha-512.sasl.jaas.config`] = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'
      // No server callback handler: the broker validates unsecured JWS tokens (alg "none"), which is what tests need.
      settings[`listener.name.${listener}.oauthbearer.sasl.jaas.config`] = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";'
    }
    if (options.authorizer === true) settings['authorizer.class.name'] = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
    if (options.reauthMs !== undefined) settings['connections.max.reauth.ms'] = options.reauthMs
    if (options.delegationTokens === true) settings['delegation.token.secret.key'] = randomBytes(24).toString('hex')
    return settings
  }
  const formatArgs = Object.entries(options.users).flatMap(([user, password]) =>
    ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap(mechanism => ['--add-scram', `${mechanism}=[name=${user},password=${password}]`]))
  return {
    listeners: { saslPlaintext: address(0), saslSsl: address(1), ssl: address(2), mtls: address(3), ca: tls.ca, clientCert: tls.clientCert, clientKey: tls.clientKey, clientPrincipal: 'User:CN=kafkats-client' },
    properties,
    formatArgs
  }
}

/** A CA, a broker certificate it signed (SAN 127.0.0.1 and localhost) and a client certificate, with openssl. */
async function makeCertificates (dir: string): Promise<{ caFile: string, serverPemFile: string, ca: string, clientCert: string, clientKey: string }> {
  await fsp.mkdir(dir, { recursive: true })
  const file = (name: string): string => path.join(dir, name)
  const openssl = async (...args: string[]): Promise<void> => {
    const result = await run('openssl', args, { cwd: dir, timeoutMs: 60_000 })
    if (result.missing) throw new Error('The secured-listener tests need `openssl` to make certificates; install it (e.g. `apt-get install openssl`)')
    if (result.code !== 0) throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed:\n${tail(result.stdout + result.stderr, 20)}`)
  }
  await openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=kafkats-test-ca')
  await fsp.writeFile(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  for (const [name, subject, ext] of [['server', '/CN=localhost', ['-extfile', file('server.ext')]], ['client', '/CN=kafkats-client', []]] as const) {
    await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${name}.rsa.key`), '-out', file(`${name}.csr`), '-subj', subject)
    await openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file(`${name}.pem`), '-days', '2', ...ext)
    // Kafka's PEM key store reads PKCS#8 keys.
    await openssl('pkcs8', '-topk8', '-nocrypt', '-in', file(`${name}.rsa.key`), '-out', file(`${name}.key`))
  }
  const read = async (name: string): Promise<string> => await fsp.readFile(file(name), 'utf8')
  await fsp.writeFile(file('server-keystore.pem'), (await read('server.key')) + (await read('server.pem')))
  return { caFile: file('ca.pem'), serverPemFile: file('server-keystore.pem'), ca: await read('ca.pem'), clientCert: await read('client.pem'), clientKey: await read('client.key') }
}

// ---------------------------------------------------------------------------------------
// Readiness: ApiVersions answers and Metadata lists the brokers, asked with kafkats's own codecs

async function waitForNodes (nodes: BrokerNode[], expectedIds: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const down = nodes.find(node => node.state === 'down')
    if (down !== undefined) throw new Error(`Kafka node ${down.nodeId} exited while starting.\n${logTails([down])}`)
    const problems = await Promise.all(nodes.map(async node => {
      try {
        const listed = await probeBroker(node.host, node.port, 5000)
        const missing = expectedIds.filter(id => !listed.includes(id))
        return missing.length === 0 ? undefined : `node ${node.nodeId}'s Metadata lists brokers [${listed.join(', ')}], not yet [${missing.join(', ')}]`
      } catch (error) {
        return `node ${node.nodeId} (${node.host}:${node.port}): ${(error as Error).message}`
      }
    }))
    const problem = problems.find(p => p !== undefined)
    if (problem === undefined) return
    if (Date.now() > deadline) {
      throw new Error(`Kafka did not become ready within ${Math.round(timeoutMs / 1000)} s: ${problem}\n${logTails(nodes)}`)
    }
    await sleep(250)
  }
}

function logTails (nodes: BrokerNode[]): string {
  return nodes.map(node => `--- last lines of node ${node.nodeId}'s log (${node.logFile}):\n${node.logTail()}`).join('\n')
}

// ApiVersions v0, which every broker from 0.10 to 4.x speaks; then Metadata at the highest version both sides have, up to v12.
const PROBE_API_VERSIONS = 0
const PROBE_METADATA_MAX = 12

/** Asks one broker for ApiVersions and Metadata (no topics) and returns the broker ids it lists. */
export async function probeBroker (host: string, port: number, timeoutMs: number): Promise<number[]> {
  const clientId = 'kafkats-harness'
  const [versionsFrame] = await exchange(host, port, [encodeRequestFrame(ApiVersions, PROBE_API_VERSIONS, 1, clientId, { clientSoftwareName: 'kafkats-harness', clientSoftwareVersion: '0' })], timeoutMs)
  const versions = decodeResponseFrame(ApiVersions, PROBE_API_VERSIONS, versionsFrame)
  if (versions.errorCode !== 0) throw new Error(`ApiVersions answered error ${versions.errorCode}`)
  const range = versions.apiKeys.find(key => key.apiKey === Metadata.key)
  if (range === undefined) throw new Error('ApiVersions lists no Metadata')
  const version = Math.min(range.maxVersion, PROBE_METADATA_MAX)
  const [metadataFrame] = await exchange(host, port, [encodeRequestFrame(Metadata, version, 1, clientId, { topics: [], allowAutoTopicCreation: false })], timeoutMs)
  return decodeResponseFrame(Metadata, version, metadataFrame).brokers.map(broker => broker.nodeId)
}

/** Sends the frames in order and collects as many response frames (without their size prefix). */
function exchange (host: string, port: number, frames: Buffer[], timeoutMs: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port })
    const responses: Buffer[] = []
    let pending = Buffer.alloc(0)
    let done = false
    const finish = (error?: Error): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      if (error !== undefined) reject(error)
      else resolve(responses)
    }
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.once('connect', () => { for (const frame of frames) socket.write(frame) })
    socket.on('error', error => finish(error))
    socket.on('close', () => finish(new Error('connection closed before the answer')))
    socket.on('data', chunk => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0)
        if (size < 4 || size > 64 * 1024 * 1024) return finish(new Error(`bad response frame size ${size}`))
        if (pending.length < 4 + size) return
        const frame = pending.subarray(4, 4 + size)
        pending = pending.subarray(4 + size)
        const correlationId = frame.readInt32BE(0)
        if (correlationId !== responses.length + 1) return finish(new Error(`response has correlation id ${correlationId}, expected ${responses.length + 1}`))
        responses.push(frame)
        if (responses.length === frames.length) return finish()
      }
    })
  })
}

function unrefStream (stream: unknown): void {
  (stream as { unref?: () => void } | null)?.unref?.()
}

/** Awaits a promise that no handle of ours keeps the event loop alive for (a child's exit). */
async function keepAliveUntil (promise: Promise<void>): Promise<void> {
  const timer = setInterval(() => {}, 1000)
  try {
    await promise
  } finally {
    clearInterval(timer)
  }
}

function sleep (ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

function tail (text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n')
}
