// Invariant 1 under chaos, against a real three-node Kafka 4.4 cluster: hundreds of
// thousands of keyed records go to a six-partition topic (RF=3, min.insync.replicas=2,
// acks=all, idempotence on: the producer's defaults) while, several times, the node that
// leads the most partitions is killed with SIGKILL, mid-flight, and restarted. Afterwards
// every partition is read from offset 0 to its end, and:
// - every acknowledged record is at the partition and offset it was acknowledged with,
//   with its own key and value (so every acknowledged (key, seq) is present);
// - no record is in the log twice;
// - each key's records are in one partition, the one its key hashes to, with their
//   sequence numbers increasing (send order) — and each partition holds its records in
//   send order;
// - no record failed (a failure is reported with its error class).
// The kills must have hit requests in flight: the producer's 'ambiguous' events count
// the attempts whose outcome was unknown, and there must be some.
//
// Knobs (environment): KAFKATS_CHAOS_RECORDS (default 200000), KAFKATS_CHAOS_KILLS
// (default 3), KAFKATS_CHAOS_SECONDS (how long production is spread over, default 60),
// KAFKATS_CHAOS_SEED (keys and chaos timings; random by default, printed in the summary),
// KAFKATS_CHAOS_LINGER_MS (the producer's lingerMs; its default when unset).
import { randomInt } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { BufferFullError, Client, OutcomeUnknownError, type DataLossEvent, type Producer, type RecordMetadata } from '../../index'
import { javaPartition } from '../../protocol/murmur2'
import { startCluster, type KafkaCluster } from '../broker/kafka'
import { envInt, forEachLogRecord, partitionsByLeader, seededRandom, Timeline, waitForFullIsr, withTimeout } from './chaos-support'
import { requireJavaOrSkip } from './support'
import { sleep } from '../support/wait'

const skip = requireJavaOrSkip()

const RECORDS = envInt('KAFKATS_CHAOS_RECORDS', 200_000)
const KILLS = Math.max(1, envInt('KAFKATS_CHAOS_KILLS', 3))
const PLANNED_MS = Math.max(1, envInt('KAFKATS_CHAOS_SECONDS', 60)) * 1000
const SEED = envInt('KAFKATS_CHAOS_SEED', randomInt(2 ** 31))
const LINGER_MS = process.env.KAFKATS_CHAOS_LINGER_MS === undefined ? undefined : envInt('KAFKATS_CHAOS_LINGER_MS', 5)
const KEYS = 1000
const PARTITIONS = 6
const REPLICAS = 3
// Gives the values some body, like real records, without making the run I/O bound.
const FILLER = 'x'.repeat(48)

// A record's state starts at 0, pending (a Uint8Array's initial value).
const ACKED = 1
const FAILED = 2

/** Problems found in the log, by kind, with the first few examples of each. */
class Problems {
  readonly #kinds = new Map<string, { count: number, examples: string[] }>()

  add (kind: string, example: string): void {
    let entry = this.#kinds.get(kind)
    if (entry === undefined) this.#kinds.set(kind, entry = { count: 0, examples: [] })
    entry.count++
    if (entry.examples.length < 10) entry.examples.push(example)
  }

  get total (): number {
    let total = 0
    for (const { count } of this.#kinds.values()) total += count
    return total
  }

  toString (): string {
    return [...this.#kinds].map(([kind, { count, examples }]) => `${kind}: ${count}\n    ${examples.join('\n    ')}`).join('\n')
  }
}

describe('idempotent producer while partition leaders are killed and restarted', { skip, timeout: 30 * 60_000 }, () => {
  let cluster: KafkaCluster
  let client: Client
  // A second client for the test's own look at the cluster (leaders, ISR, reading the log
  // back), so its metadata refreshes never help the producer's client find new leaders.
  let observer: Client

  before(async () => {
    cluster = await startCluster({
      nodes: 3,
      portBase: 'free',
      brokerOverrides: {
        // A killed broker is fenced (and its partitions get new leaders) sooner than the default 9 s.
        'broker.session.timeout.ms': 6000,
        'broker.heartbeat.interval.ms': 1000,
        // A restarted node takes its preferred leaderships back while records flow: more leader moves.
        'leader.imbalance.check.interval.seconds': 10
      }
    })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'chaos-test', retryBackoff: { initialMs: 100, maxMs: 1000 } })
    observer = new Client({ bootstrap: cluster.bootstrap, clientId: 'chaos-observer', retryBackoff: { initialMs: 100, maxMs: 1000 } })
  })

  after(async () => {
    await client?.close()
    await observer?.close()
    await cluster?.stop()
  })

  test(`${RECORDS} keyed records to ${PARTITIONS} partitions through ${KILLS} leader kills: none lost, none duplicated, each key in send order`, async () => {
    const random = seededRandom(SEED)
    const timeline = new Timeline()
    const topic = `chaos-${Date.now()}`
    await client.admin.createTopics([{ topic, numPartitions: PARTITIONS, replicationFactor: REPLICAS, configs: { 'min.insync.replicas': '2' } }])
    await client.metadata.waitForTopic(topic, 60_000)
    assert.ok(await waitForFullIsr(observer, topic, REPLICAS, 60_000), 'the new topic never had 3 in-sync replicas on every partition')
    timeline.note(`topic ${topic} ready; seed ${SEED}`)

    // What each record is: its key and its sequence number within the key.
    const keyNames = Array.from({ length: KEYS }, (_, k) => Buffer.from(`key-${String(k).padStart(4, '0')}`))
    const keyPartition = keyNames.map(key => javaPartition(key, PARTITIONS))
    const keyOf = new Int32Array(RECORDS)
    const seqOf = new Int32Array(RECORDS)
    const nextSeq = new Int32Array(KEYS)
    for (let i = 0; i < RECORDS; i++) {
      const k = Math.floor(random() * KEYS)
      keyOf[i] = k
      seqOf[i] = nextSeq[k]++
    }
    const valueOf = (i: number): string => `${keyOf[i]}|${seqOf[i]}|${i}|${FILLER}`

    // What the producer said about each record.
    const state = new Uint8Array(RECORDS)
    const callbackCount = new Uint8Array(RECORDS)
    const ackPartition = new Int8Array(RECORDS).fill(-1)
    const ackOffset = new BigInt64Array(RECORDS).fill(-1n)
    const errors = new Map<number, Error>()
    let settled = 0
    let acked = 0
    let extraCallbacks = 0
    let refused = -1
    const settle = (i: number, error: Error | null, result: RecordMetadata | null): void => {
      // Refused synchronously because the buffer was full: the writer offers it again.
      if (error instanceof BufferFullError) { refused = i; return }
      if (++callbackCount[i] > 1) { extraCallbacks++; return }
      settled++
      if (error === null) {
        state[i] = ACKED
        acked++
        ackPartition[i] = result!.partition
        ackOffset[i] = result!.offset
      } else {
        state[i] = FAILED
        errors.set(i, error)
      }
    }

    const producer: Producer = client.producer({ maxBufferedRecords: 10_000, lingerMs: LINGER_MS })
    let ambiguous = 0
    let ambiguousNotedThisRound = 0
    const ambiguousByError = new Map<string, number>()
    let epochBumps = 0
    const dataLoss: DataLossEvent[] = []
    producer.on('ambiguous', ({ partition, baseSequence, error }: { partition: number, baseSequence: number, error: Error & { type?: string } }) => {
      ambiguous++
      const name = error.type ?? error.name
      ambiguousByError.set(name, (ambiguousByError.get(name) ?? 0) + 1)
      if (++ambiguousNotedThisRound <= 4) timeline.note(`ambiguous attempt: partition ${partition}, sequence ${baseSequence}: ${name}: ${error.message}`)
    })
    producer.on('epochBump', ({ producerEpoch, reason }: { producerEpoch: number, reason: string }) => {
      epochBumps++
      timeline.note(`epoch bump to ${producerEpoch}: ${reason}`)
    })
    producer.on('dataLoss', (event: DataLossEvent) => {
      dataLoss.push(event)
      timeline.note(`dataLoss event on partition ${event.partition} (code ${event.code}): ${event.message}`)
    })

    // The writer spreads the records over PLANNED_MS, but holds back a reserve per kill
    // round that the chaos loop releases just before it kills, so the writer is pushing
    // records at full speed when the leader dies even if the chaos runs late.
    const startedAt = Date.now()
    const reservePerRound = Math.floor(RECORDS / (2 * (KILLS + 1)))
    let armedRounds = 0
    let produced = 0
    let backpressureWaits = 0
    let stopWriting = false
    const allowance = (): number => Math.min(
      RECORDS,
      Math.floor(RECORDS * (Date.now() - startedAt) / PLANNED_MS),
      RECORDS - reservePerRound * (KILLS - armedRounds)
    )
    const writer = (async () => {
      while (produced < RECORDS && !stopWriting) {
        const limit = allowance()
        if (produced >= limit) {
          await sleep(5)
          continue
        }
        const stopAt = Math.min(limit, produced + 500)
        while (produced < stopAt) {
          const i = produced
          const hasRoom = producer.produce({ topic, key: keyNames[keyOf[i]], value: valueOf(i) }, (error, result) => settle(i, error, result))
          if (refused === i) {
            refused = -1
            backpressureWaits++
            await producer.waitForSpace()
            continue
          }
          produced++
          if (!hasRoom) {
            backpressureWaits++
            await producer.waitForSpace()
          }
        }
        // Let timers, sockets and the chaos loop run.
        await new Promise(resolve => setImmediate(resolve))
      }
    })()

    let kills = 0
    const chaos = (async () => {
      for (let round = 1; round <= KILLS; round++) {
        const armAt = startedAt + PLANNED_MS * round / (KILLS + 1)
        while (Date.now() < armAt) await sleep(100)
        armedRounds = round
        await sleep(300 + Math.floor(random() * 700))
        const byLeader = await partitionsByLeader(observer, topic)
        let victim = -1
        let led: number[] = []
        for (const [nodeId, partitions] of byLeader) {
          if (partitions.length > led.length && cluster.node(nodeId).state === 'running') {
            victim = nodeId
            led = partitions
          }
        }
        assert.ok(victim >= 0, `round ${round}: metadata shows no leader for any partition of ${topic}`)
        ambiguousNotedThisRound = 0
        timeline.note(`round ${round}: SIGKILL node ${victim} (leader of partitions ${led.join(', ')}); produced ${produced}, acknowledged ${acked}, answered ${settled}`)
        await cluster.node(victim).kill()
        kills++
        const downMs = 2000 + Math.floor(random() * 6000)
        await sleep(downMs)
        timeline.note(`round ${round}: restarting node ${victim} after ${downMs} ms down; produced ${produced}, acknowledged ${acked}`)
        await cluster.node(victim).restart()
        await cluster.waitUntilReady()
        timeline.note(`round ${round}: node ${victim} is back; produced ${produced}, acknowledged ${acked}`)
        const full = await waitForFullIsr(observer, topic, REPLICAS, 120_000)
        timeline.note(full ? `round ${round}: every partition has ${REPLICAS} in-sync replicas again` : `round ${round}: WARNING: some partition still lacks an in-sync replica after 120 s`)
      }
    })()

    // Notes leader moves (as the observer sees them) and stretches without any
    // acknowledgement, so a stall can be told apart from a cluster without leaders.
    let watching = true
    const watcher = (async () => {
      let lastLeaders = ''
      let lastAcked = -1
      let stalledSince = 0
      while (watching) {
        await sleep(1000)
        try {
          await observer.metadata.refresh([topic])
          const leaders = (observer.metadata.topic(topic)?.partitions ?? []).map(p => `${p.partition}→${p.leaderId}`).join(' ')
          if (leaders !== lastLeaders) timeline.note(`leaders ${leaders}`)
          lastLeaders = leaders
        } catch (error) {
          timeline.note(`observer metadata refresh failed: ${(error as Error).message}`)
        }
        if (acked === lastAcked && settled < produced) {
          if (stalledSince === 0) {
            stalledSince = Date.now()
            timeline.note(`no acknowledgement for 1 s; ${produced - settled} records unanswered`)
          }
        } else if (stalledSince !== 0) {
          timeline.note(`acknowledgements resumed after ${((Date.now() - stalledSince) / 1000 + 1).toFixed(1)} s`)
          stalledSince = 0
        }
        lastAcked = acked
      }
    })()

    const unsettledReport = (): string => {
      const byPartition = new Map<number, { count: number, first: number }>()
      for (let i = 0; i < produced; i++) {
        if (callbackCount[i] !== 0) continue
        const p = keyPartition[keyOf[i]]
        const entry = byPartition.get(p)
        if (entry === undefined) byPartition.set(p, { count: 1, first: i })
        else entry.count++
      }
      const leaders = (observer.metadata.topic(topic)?.partitions ?? []).map(p => `${p.partition}→${p.leaderId} (isr ${p.isr.join(',')})`).join('; ')
      return `${produced - settled} of ${produced} produced records unanswered (${RECORDS} planned); by partition: ${[...byPartition].map(([p, e]) => `${p}: ${e.count} (first record ${e.first})`).join(', ')}; ` +
        `producer ${JSON.stringify(producer.producerIdentity, (_, v) => typeof v === 'bigint' ? v.toString() : v)}; leaders ${leaders}; nodes ${cluster.nodes.map(n => `${n.nodeId}:${n.state}`).join(', ')}; seed ${SEED}\n${timeline.toString()}`
    }

    try {
      await withTimeout(Promise.all([writer, chaos.catch(error => { stopWriting = true; throw error })]), PLANNED_MS + KILLS * 240_000, unsettledReport)
      timeline.note(`all ${produced} records produced, chaos done; acknowledged ${acked}`)
      await withTimeout(producer.flush(), 300_000, unsettledReport)
    } finally {
      stopWriting = true
      watching = false
      await producer.close({ force: true })
      await watcher
    }
    const produceMs = Date.now() - startedAt
    timeline.note(`flushed: ${settled} answered, ${acked} acknowledged`)

    // Read the whole log back.
    const verifyStart = Date.now()
    const problems = new Problems()
    const inLog = new Uint8Array(RECORDS)
    const logPartition = new Int8Array(RECORDS).fill(-1)
    const logOffset = new BigInt64Array(RECORDS).fill(-1n)
    const lastSeqOfKey = new Int32Array(KEYS).fill(-1)
    const lastOffsetOfKey = new BigInt64Array(KEYS).fill(-1n)
    const logSizes: string[] = []
    for (let p = 0; p < PARTITIONS; p++) {
      let lastIndex = -1
      let lastOffset = -1n
      const { end, count } = await forEachLogRecord(observer, topic, p, record => {
        const where = `partition ${p} offset ${record.offset}`
        const text = record.value?.toString() ?? '(null)'
        const [kText, sText, iText] = text.split('|')
        const i = Number(iText)
        if (!Number.isInteger(i) || i < 0 || i >= RECORDS || Number(kText) !== keyOf[i] || Number(sText) !== seqOf[i]) {
          problems.add('record in the log that the test did not send as such', `${where}: key ${record.key?.toString() ?? '(null)'}, value ${text.slice(0, 40)}`)
          return
        }
        const k = keyOf[i]
        if (record.key === null || !record.key.equals(keyNames[k])) {
          problems.add('record with the wrong key', `${where}: record ${i} (key ${keyNames[k].toString()}, seq ${seqOf[i]}) has key ${record.key?.toString() ?? '(null)'}`)
        }
        if (inLog[i] === 1) {
          problems.add('duplicate', `record ${i} (key ${k}, seq ${seqOf[i]}) at partition ${logPartition[i]} offset ${logOffset[i]} and again at ${where}`)
          return
        }
        inLog[i] = 1
        logPartition[i] = p
        logOffset[i] = record.offset
        if (keyPartition[k] !== p) {
          problems.add('key in the wrong partition', `${where}: record ${i} of key ${k} belongs in partition ${keyPartition[k]}`)
        }
        if (seqOf[i] <= lastSeqOfKey[k]) {
          problems.add('key out of send order', `${where}: key ${k} seq ${seqOf[i]} (record ${i}) after seq ${lastSeqOfKey[k]} at offset ${lastOffsetOfKey[k]}`)
        }
        if (seqOf[i] > lastSeqOfKey[k]) {
          lastSeqOfKey[k] = seqOf[i]
          lastOffsetOfKey[k] = record.offset
        }
        if (i < lastIndex) {
          problems.add('partition out of send order', `${where}: record ${i} after record ${lastIndex} at offset ${lastOffset}`)
        } else {
          lastIndex = i
          lastOffset = record.offset
        }
      })
      logSizes.push(`${p}: ${count} records to offset ${end}`)
    }

    // Every record against what the producer said about it.
    const failedByClass = new Map<string, { count: number, example: string }>()
    let unknownOutcome = 0
    for (let i = 0; i < RECORDS; i++) {
      const what = `record ${i} (key ${keyOf[i]}, seq ${seqOf[i]})`
      if (i < produced && callbackCount[i] === 0) problems.add('never answered', what)
      if (state[i] === ACKED) {
        if (inLog[i] === 0) {
          problems.add('acknowledged but missing from the log', `${what} acknowledged at partition ${ackPartition[i]} offset ${ackOffset[i]}`)
        } else if (logPartition[i] !== ackPartition[i] || logOffset[i] !== ackOffset[i]) {
          problems.add('acknowledged at another offset than where it is', `${what} acknowledged at partition ${ackPartition[i]} offset ${ackOffset[i]}, is at partition ${logPartition[i]} offset ${logOffset[i]}`)
        }
      } else if (state[i] === FAILED) {
        const error = errors.get(i)!
        const name = error.constructor.name
        const entry = failedByClass.get(name)
        if (entry === undefined) failedByClass.set(name, { count: 1, example: `${what}: ${error.message}` })
        else entry.count++
        if (error instanceof OutcomeUnknownError) unknownOutcome++
        else if (inLog[i] === 1) problems.add('reported failed but in the log', `${what}: ${name}: ${error.message}; at partition ${logPartition[i]} offset ${logOffset[i]}`)
      }
    }
    const verifyMs = Date.now() - verifyStart
    const failed = settled - acked

    const ambiguousText = [...ambiguousByError].map(([name, count]) => `${name} ${count}`).join(', ')
    console.log(`  chaos summary: ${acked} of ${RECORDS} records acknowledged, ${failed} failed (${unknownOutcome} outcome unknown), ${kills} kills, ` +
      `${ambiguous} ambiguous attempts (${ambiguousText}), ${epochBumps} epoch bumps, ${dataLoss.length} dataLoss events, ${backpressureWaits} backpressure waits; ` +
      `produce ${(produceMs / 1000).toFixed(1)} s, verify ${(verifyMs / 1000).toFixed(1)} s; seed ${SEED}${LINGER_MS === undefined ? '' : `, lingerMs ${LINGER_MS}`}`)
    console.log(`  log: ${logSizes.join('; ')}`)
    console.log(timeline.toString().split('\n').map(line => `    ${line}`).join('\n'))

    const context = `seed ${SEED}\n${timeline.toString()}`
    assert.equal(extraCallbacks, 0, `${extraCallbacks} records were answered more than once\n${context}`)
    assert.equal(produced, RECORDS, `only ${produced} of ${RECORDS} records were produced\n${context}`)
    assert.equal(problems.total, 0, `the log does not match what the producer acknowledged:\n${problems.toString()}\n${context}`)
    assert.equal(failed, 0, `records failed: ${[...failedByClass].map(([name, { count, example }]) => `${name} ×${count} (e.g. ${example})`).join('; ')}\n${context}`)
    assert.equal(acked, RECORDS)
    assert.ok(kills >= KILLS, `only ${kills} of ${KILLS} kills happened`)
    assert.ok(ambiguous > 0, `no attempt had an unknown outcome: the kills never hit a request in flight, so the ambiguous path was not tested\n${context}`)
  })
})
