// Share groups under churn (issue 13: "nothing lost under churn"), against the real broker.
//
// Four member processes (share-churn-member.ts, implicit acknowledgement) consume a
// 4-partition topic while KAFKATS_SHARE_CHURN_RECORDS records (default 20,000; the issue's
// figure is 100,000) are produced to it over ~20 s. Meanwhile a seeded schedule makes two
// members leave gracefully (SIGTERM: close() releases what they hold) and come back,
// SIGKILLs two (their acquired records wait out the lock) and restarts them, and SIGSTOPs
// one past the group's lock duration and session timeout, then SIGCONTs it. The group's
// lock is 5 s, its session timeout 6 s, its delivery-count limit 10.
//
// Every member writes each acquisition the broker reports (range and delivery count) and
// each record it processes (with its delivery count) to its own file, synchronously, so
// both survive a SIGKILL. When production and chaos are over, the members run until every
// record was processed and the broker reports no lag, then leave, and:
// - every produced record was processed at least once, and the broker's lag is 0 on
//   every partition (everything accepted; no record reached the delivery-count limit);
// - the broker's count of redeliveries is R = Σ (deliveryCount of a record's last
//   delivery − 1): each delivery raises the count by one. The records processed more than
//   once add up to D = Σ (times processed − 1). D equals the redeliveries among the
//   processings exactly: a record's processings carry distinct delivery counts, so each
//   extra processing is a redelivery the broker numbered — never one delivery handed out
//   twice. D can only be bounded by R (D ≤ R): the redeliveries nobody processed,
//   R − D, are acquisitions of members that were SIGKILLed or left (their records were
//   released), or — when a SIGKILL cut a ShareFetch answer — never seen at all. The test
//   checks R − D against the acquisitions the members logged, exactly.
//
// KAFKATS_SHARE_CHURN_SEED fixes the schedule (printed otherwise); KAFKATS_SHARE_CHURN_KEEP=1
// keeps the members' files.
import { randomInt } from 'node:crypto'
import * as path from 'node:path'
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { envInt, seededRandom, Timeline } from './chaos-support'
import { logTail, MemberCast, type MemberSlot } from './group-chaos-support'
import { ShareTally, type ShareChurnMemberConfig } from './share-churn-support'
import { requireJavaOrSkip, uniqueName } from './support'
import { sleep } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : requireJavaOrSkip()
const RECORDS = envInt('KAFKATS_SHARE_CHURN_RECORDS', 20_000)
const SEED = process.env.KAFKATS_SHARE_CHURN_SEED === undefined ? undefined : envInt('KAFKATS_SHARE_CHURN_SEED', 0)
const KEEP_FILES = process.env.KAFKATS_SHARE_CHURN_KEEP === '1'
const PARTITIONS = 4
const PRODUCE_MS = 20_000
const LOCK_MS = 5000
const SESSION_MS = 6000
const DELIVERY_LIMIT = 10
const DRAIN_MS = 90_000
const MEMBER_NAMES = ['A', 'B', 'C', 'D']
const MEMBER_PROGRAM = path.join(__dirname, 'share-churn-member.js')

describe('share group churn on a real broker', { skip, timeout: 300_000 }, () => {
  let client: Client

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'kafkats-share-churn' })
  })

  after(async () => {
    await client.close()
  })

  /** N records with values "0" … "N - 1", in batches of 100 spread over the partitions, evenly over PRODUCE_MS. */
  async function produceAll (topic: string): Promise<void> {
    const perBatch = 100
    const batches = Math.ceil(RECORDS / perBatch)
    const started = Date.now()
    const inFlight = new Set<Promise<void>>()
    for (let b = 0; b < batches; b++) {
      const due = started + (b / batches) * PRODUCE_MS
      if (due > Date.now()) await sleep(due - Date.now())
      const records = Array.from({ length: Math.min(perBatch, RECORDS - b * perBatch) }, (_, i) => ({ value: Buffer.from(String(b * perBatch + i)) }))
      const sent: Promise<void> = client.produceRaw({ topic, partition: b % PARTITIONS, records }).then(() => { inFlight.delete(sent) })
      inFlight.add(sent)
      if (inFlight.size >= 8) await Promise.race(inFlight)
    }
    await Promise.all(inFlight)
  }

  test(`${RECORDS} records through members that join, leave, are SIGKILLed and SIGSTOPped past the lock: every record accepted, every extra processing a redelivery the broker counted`, async () => {
    const seed = SEED ?? randomInt(2 ** 31)
    const random = seededRandom(seed)
    const timeline = new Timeline()
    const topic = uniqueName('share-churn')
    const groupId = uniqueName('share-churn-g')
    await client.admin.createTopics([{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }])
    await client.metadata.waitForTopic(topic, 30_000, undefined, { allLeaders: true })
    await client.admin.alterConfigs([{
      type: 'group',
      name: groupId,
      set: {
        'share.auto.offset.reset': 'earliest',
        'share.record.lock.duration.ms': String(LOCK_MS),
        'share.session.timeout.ms': String(SESSION_MS),
        'share.heartbeat.interval.ms': '500',
        'share.delivery.count.limit': String(DELIVERY_LIMIT)
      }
    }])
    const cast = new MemberCast({
      names: MEMBER_NAMES,
      program: MEMBER_PROGRAM,
      runDirPrefix: 'kafkats-share-churn-',
      timeline,
      config: (label, output, m): ShareChurnMemberConfig => ({
        label, bootstrap: bootstrap!, topic, groupId, output, maxRecords: 200, maxProcessingDelayMs: 50, seed: seed + m * 1000 + cast.registry.length, closeTimeoutMs: 20_000
      })
    })
    const { registry, unexpectedExits, slots } = cast
    timeline.note(`topic ${topic}, group ${groupId}, seed ${seed}, files in ${cast.runDir}`)
    const tally = new ShareTally(PARTITIONS)
    const fates = new Map<number, 'SIGKILL' | 'SIGTERM' | 'stalled'>()
    const startedAt = Date.now()
    let passed = false
    try {
      for (const slot of slots) slot.start()
      const producing = produceAll(topic)
      // The schedule: offsets (ms from the start) of each event, jittered by the seed.
      const jitter = (ms: number): number => ms + Math.floor(random() * 1500)
      const pick = (): MemberSlot | undefined => { const r = cast.running(1500); return r[Math.floor(random() * r.length)] }
      const at = async (ms: number): Promise<void> => { const wait = startedAt + ms - Date.now(); if (wait > 0) await sleep(wait) }
      const events: Array<{ at: number, what: 'leave' | 'kill' | 'stall' }> = ([
        { at: jitter(4000), what: 'leave' },
        { at: jitter(7000), what: 'kill' },
        { at: jitter(10_000), what: 'stall' },
        { at: jitter(13_000), what: 'kill' },
        { at: jitter(16_000), what: 'leave' }
      ] as const).map(e => ({ ...e })).sort((a, b) => a.at - b.at)
      const counts = { leaves: 0, kills: 0, stalls: 0 }
      const background: Array<Promise<void>> = []
      for (const event of events) {
        await at(event.at)
        const slot = pick()
        if (slot === undefined) { timeline.note(`no member to ${event.what}: skipped`); continue }
        const incarnation = slot.current!
        if (event.what === 'stall') {
          slot.stall()
          fates.set(incarnation.index, 'stalled')
          counts.stalls++
          // Past the lock and the session: its records go to others, and it is fenced.
          background.push(sleep(LOCK_MS + SESSION_MS / 2 + 1000).then(() => slot.resume()))
          continue
        }
        fates.set(incarnation.index, event.what === 'kill' ? 'SIGKILL' : 'SIGTERM')
        if (event.what === 'kill') { await slot.kill(); counts.kills++ } else { await slot.leave(20_000); counts.leaves++ }
        background.push(cast.restartAfter(slot, 1000 + Math.floor(random() * 1000)).then(() => {}))
      }
      await producing
      await Promise.all(background)
      const ends: number[] = []
      for (let p = 0; p < PARTITIONS; p++) ends.push(Number((await client.listOffsets({ topic, partition: p, spec: 'latest' })).offset))
      assert.equal(ends.reduce((a, b) => a + b, 0), RECORDS)
      timeline.note(`produced ${RECORDS}; chaos done (${counts.leaves} leaves, ${counts.kills} kills, ${counts.stalls} stalls)`)

      // Until everything is processed and the broker has nothing left in flight.
      const drainStart = Date.now()
      let lag: bigint[] = []
      for (;;) {
        tally.update(registry)
        if (tally.distinct >= RECORDS) {
          const offsets = await client.admin.describeShareGroupOffsets(groupId, { topics: [topic] })
          lag = offsets.sort((a, b) => a.partition - b.partition).map(o => o.lag ?? -1n)
          if (lag.length === PARTITIONS && lag.every(l => l === 0n)) break
        }
        if (Date.now() - drainStart > DRAIN_MS) assert.fail(`after ${DRAIN_MS / 1000} s: ${tally.distinct} of ${RECORDS} records processed, broker lag ${lag.join(',')}\n${timeline.toString()}`)
        await sleep(500)
      }
      const drainMs = Date.now() - drainStart
      const closedCleanly = await Promise.all(slots.map(async slot => await slot.leave(20_000)))
      tally.update(registry)

      // The accounting, per record.
      let processings = 0
      let duplicates = 0
      let brokerRedeliveries = 0
      let unprocessedAcquired = 0
      let neverSeen = 0
      let highestCount = 0
      const repeatedDelivery: string[] = []
      const unloggedProcessing: string[] = []
      const unprocessedBy = new Map<string, number>()
      // Records the stalled member had acquired that went to another member with a higher count (its locks expired).
      let takenFromStalled = 0
      for (let p = 0; p < PARTITIONS; p++) {
        for (let offset = 0; offset < ends[p]; offset++) {
          const done = tally.processed[p].get(offset) ?? []
          const acquired = tally.acquired[p].get(offset) ?? []
          const last = Math.max(0, ...done.map(d => d.deliveryCount), ...acquired.map(d => d.deliveryCount))
          highestCount = Math.max(highestCount, last)
          processings += done.length
          duplicates += Math.max(0, done.length - 1)
          brokerRedeliveries += Math.max(0, last - 1)
          const doneCounts = new Set(done.map(d => d.deliveryCount))
          if (doneCounts.size !== done.length && repeatedDelivery.length < 10) repeatedDelivery.push(`${p}@${offset}: processed with delivery counts ${done.map(d => `${d.deliveryCount} by ${registry[d.by].label}`).join(', ')}`)
          const acquiredCounts = new Set(acquired.map(d => d.deliveryCount))
          if (acquiredCounts.size !== acquired.length && repeatedDelivery.length < 10) repeatedDelivery.push(`${p}@${offset}: acquired with delivery counts ${acquired.map(d => `${d.deliveryCount} by ${registry[d.by].label}`).join(', ')}`)
          for (const d of done) {
            if (!acquired.some(a => a.deliveryCount === d.deliveryCount && a.by === d.by) && unloggedProcessing.length < 10) unloggedProcessing.push(`${p}@${offset} delivery ${d.deliveryCount} by ${registry[d.by].label}`)
          }
          for (const a of acquired) {
            if (doneCounts.has(a.deliveryCount)) continue
            unprocessedAcquired++
            const fate = `${fates.get(a.by) ?? 'no signal until the end'}`
            unprocessedBy.set(fate, (unprocessedBy.get(fate) ?? 0) + 1)
          }
          for (let count = 1; count <= last; count++) if (!acquiredCounts.has(count)) neverSeen++
          const stalledAt = acquired.find(a => fates.get(a.by) === 'stalled')
          if (stalledAt !== undefined && acquired.some(a => a.by !== stalledAt.by && a.deliveryCount > stalledAt.deliveryCount)) takenFromStalled++
        }
      }
      console.log(`  share churn: ${RECORDS} records, ${processings} processings (${tally.distinct} distinct), ${duplicates} processed more than once; broker redeliveries ${brokerRedeliveries} ` +
        `(${brokerRedeliveries - duplicates} not processed: ${unprocessedAcquired} acquired by members ${[...unprocessedBy].map(([fate, n]) => `${fate}: ${n}`).join(', ') || '-'}, ${neverSeen} never seen); ` +
        `${takenFromStalled} of the stalled member's records redelivered to others; highest delivery count ${highestCount}; ${registry.length} member processes; drain ${(drainMs / 1000).toFixed(1)} s, total ${((Date.now() - startedAt) / 1000).toFixed(1)} s; seed ${seed}`)
      console.log(timeline.toString().split('\n').map(line => `    ${line}`).join('\n'))

      assert.deepEqual(tally.badLines, [])
      assert.deepEqual(unexpectedExits.map(i => i.label), [], `member processes exited on their own:\n${unexpectedExits.map(i => logTail(i, 20)).join('\n')}`)
      assert.deepEqual(closedCleanly, slots.map(() => true), 'members did not close cleanly at the end')
      assert.equal(tally.distinct, RECORDS, 'every record processed at least once')
      assert.deepEqual(lag, ends.map(() => 0n), 'the broker has every record accepted')
      assert.ok(highestCount < DELIVERY_LIMIT, `a record reached the delivery-count limit (${highestCount}) and may have been archived`)
      // No delivery was handed out twice (by one member or two): every extra processing is a redelivery.
      assert.deepEqual(repeatedDelivery, [])
      // Each processing belongs to an acquisition the broker reported to that member.
      assert.deepEqual(unloggedProcessing, [])
      // The broker's redeliveries: those processed (D), those acquired and dropped by a killed
      // or leaving member, and those a SIGKILL cut off unread — nothing else.
      assert.ok(duplicates <= brokerRedeliveries)
      assert.equal(brokerRedeliveries - duplicates, unprocessedAcquired + neverSeen)
      const byRunning = unprocessedBy.get('no signal until the end') ?? 0
      assert.equal(byRunning, 0, `${byRunning} acquisitions of members that were never signalled went unprocessed`)
      if (neverSeen > 0) assert.ok(counts.kills > 0, `${neverSeen} deliveries were never seen, without a SIGKILL`)
      passed = true
    } finally {
      await cast.stop(passed && !KEEP_FILES, 'share churn')
    }
  })
})
