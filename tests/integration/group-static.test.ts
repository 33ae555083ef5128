// Static membership (KIP-345) on a real broker: a second consumer with the same instanceId
// takes over the member's place; the first one learns it was fenced (FENCED_INSTANCE_ID)
// and stops with an error that says so, instead of consuming or committing alongside.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { GroupConsumer } from '../../group/group-consumer'
import { StaticMembershipError } from '../../group/errors'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

describe('static membership', { skip, timeout: 120_000 }, () => {
  let clientA: Client
  let clientB: Client

  before(() => {
    clientA = new Client({ bootstrap: bootstrap!, clientId: 'static-a' })
    clientB = new Client({ bootstrap: bootstrap!, clientId: 'static-b' })
  })

  after(async () => {
    await clientA?.close()
    await clientB?.close()
  })

  test('classic: a second member with the same instanceId fences the first, which ends with FENCED_INSTANCE_ID', async () => {
    const topic = uniqueName('static')
    await clientA.admin.createTopics([{ topic, numPartitions: 2 }])
    await clientA.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('x') }] })
    const groupId = uniqueName('g-static')
    const options = { groupId, topics: [topic], groupProtocol: 'classic' as const, instanceId: 'instance-1', fromBeginning: true, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 300 }
    const a = new GroupConsumer(clientA, options)
    let aReceived = 0
    const aDone = a.run({ eachBatch: () => { aReceived++ } }).then(() => undefined, (error: unknown) => error)
    await waitFor('A to receive a batch', () => aReceived > 0, { intervalMs: 50 })
    const b = new GroupConsumer(clientB, options)
    let bReceived = 0
    const bDone = b.run({ eachBatch: () => { bReceived++ } }).catch(() => {})
    const aError = await Promise.race([aDone, new Promise(resolve => setTimeout(() => resolve('A is still running'), 20_000))])
    assert.ok(aError instanceof StaticMembershipError, `A did not stop with a StaticMembershipError: ${String(aError)}`)
    assert.equal(aError.code, 82)
    assert.equal(aError.type, 'FENCED_INSTANCE_ID')
    assert.match(aError.message, /instance-1/)
    // B owns the group's partitions now and consumes what comes next.
    for (const partition of [0, 1]) await clientA.produceRaw({ topic, partition, records: [{ value: Buffer.from('y') }] })
    await waitFor('B to receive a batch', () => bReceived > 0, { intervalMs: 50 })
    await a.close()
    await b.close()
    await bDone
  })
})
