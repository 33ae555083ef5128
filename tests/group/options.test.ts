// What a group consumer accepts and how it starts: option checks at construction (a
// TypeError or RangeError naming the option, as client/validate.ts words them), the choice
// of group protocol (classic-only options, a broker that lists KIP-848 without running it),
// where a group without committed offsets starts (offsetReset), RegExp subscriptions, and
// the errors that end a member (the same class in both protocols).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../client/client'
import { GroupConsumer, type GroupConsumerOptions } from '../../group/group-consumer'
import { GroupProtocolUnsupportedError, StaticMembershipError } from '../../group/errors'
import { ConsumerGroupHeartbeat } from '../../protocol/apis/consumer-group-heartbeat'
import { BrokerError, KafkaTsError, ProtocolError } from '../../protocol/errors'
import { protocols, until, withHarness } from './support'

describe('group consumer options are checked at construction', () => {
  const client = new Client({ bootstrap: ['127.0.0.1:9'] })
  const base = { groupId: 'g', topics: ['t'] }
  const refused: Array<[string, Record<string, unknown>, typeof TypeError | typeof RangeError, RegExp]> = [
    ['no groupId', { topics: ['t'] }, TypeError, /groupId/],
    ['an empty groupId', { groupId: '', topics: ['t'] }, RangeError, /groupId: expected a non-empty string/],
    ['no topics', { groupId: 'g' }, TypeError, /topics: a group consumer needs topics/],
    ['an empty topic list', { groupId: 'g', topics: [] }, RangeError, /topics: expected at least one/],
    ['a topic that is not a string', { groupId: 'g', topics: ['t', 5] }, TypeError, /topics\[1\]/],
    ['an unknown groupProtocol', { ...base, groupProtocol: 'foo' }, RangeError, /groupProtocol: expected one of 'consumer', 'classic', got "foo"/],
    ['an unknown delivery', { ...base, delivery: 'exactly-once' }, RangeError, /delivery/],
    ['a negative rebalanceTimeoutMs', { ...base, rebalanceTimeoutMs: -1 }, RangeError, /rebalanceTimeoutMs/],
    ['a fractional sessionTimeoutMs', { ...base, groupProtocol: 'classic', sessionTimeoutMs: 1.5 }, TypeError, /sessionTimeoutMs: expected an integer/],
    ['a string autoCommitIntervalMs', { ...base, autoCommitIntervalMs: '100' }, TypeError, /autoCommitIntervalMs/],
    ['an autoCommit that is not a boolean', { ...base, autoCommit: 'false' }, TypeError, /autoCommit: expected true or false/],
    ['autoCommit: false with an autoCommitIntervalMs', { ...base, autoCommit: false, autoCommitIntervalMs: 100 }, RangeError, /autoCommitIntervalMs: 100 with autoCommit: false/],
    ['autoCommit: false with at-most-once', { ...base, autoCommit: false, delivery: 'at-most-once' }, RangeError, /autoCommit: false with delivery: 'at-most-once'/],
    ['an unknown offsetReset', { ...base, offsetReset: 'smallest' }, RangeError, /offsetReset/],
    ['fromBeginning contradicting offsetReset', { ...base, fromBeginning: true, offsetReset: 'latest' }, RangeError, /fromBeginning/],
    ['an onAssigned that is not a function', { ...base, onAssigned: 'log' }, TypeError, /onAssigned: expected a function/],
    ['an assignor that is neither a name nor an Assignor', { ...base, assignor: 42 }, TypeError, /assignor/],
    ['KIP-848 with a client-side assignor', { ...base, groupProtocol: 'consumer', assignor: { name: 'mine', protocol: 'eager', assign: () => new Map() } }, RangeError, /assignor \(an Assignor object\): classic-protocol only/],
    ['a RegExp with a flag Kafka cannot match', { groupId: 'g', topics: new RegExp('orders', 'v') }, RangeError, /RegExp flag/]
  ]
  for (const [what, options, type, message] of refused) {
    test(`${what}: ${type.name}`, () => {
      assert.throws(() => new GroupConsumer(client, options as unknown as GroupConsumerOptions), (error: Error) => {
        assert.ok(error instanceof type, `${error.name}: ${error.message}`)
        assert.match(error.message, message)
        return true
      })
    })
  }
})

describe('every error is named after its class', () => {
  test('KafkaTsError and its subclasses, including those that do not set a name', () => {
    assert.equal(new KafkaTsError('X', 'x').name, 'KafkaTsError')
    assert.equal(new BrokerError(3, 'x').name, 'BrokerError')
    assert.equal(new ProtocolError('x').name, 'ProtocolError')
    assert.equal(new StaticMembershipError(82, 'g', 'i').name, 'StaticMembershipError')
    assert.equal(new GroupProtocolUnsupportedError(35, 'g').name, 'GroupProtocolUnsupportedError')
    class Unnamed extends KafkaTsError {}
    assert.equal(new Unnamed('Y', 'y').name, 'Unnamed')
  })
})

describe('group consumer start-up against the fake cluster', { timeout: 60_000 }, () => {
  test('topics given as one string is that one topic', async () => {
    await withHarness({ partitions: 1, records: 3 }, async h => {
      const a = await h.member('a', 'consumer', { topics: h.topic })
      a.run(h)
      await until(() => a.processedUpTo(0) === 3n, 'A consuming the topic')
    })
  })

  test('KIP-848 with sessionTimeoutMs and heartbeatIntervalMs: a warning says the broker sets them', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'consumer', { sessionTimeoutMs: 2000, heartbeatIntervalMs: 100 })
      a.run(h)
      await until(() => a.processedUpTo(0) === 2n, 'A consuming')
      const said = a.warnings.find(w => (w as KafkaTsError).kind === 'CLASSIC_ONLY_OPTION') as Error | undefined
      assert.match(said?.message ?? 'no CLASSIC_ONLY_OPTION warning', /sessionTimeoutMs, heartbeatIntervalMs: classic-protocol only and ignored with KIP-848.*groupProtocol: 'classic'/)
    })
  })

  test('groupProtocol left out with a classic-only option: the classic protocol', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'classic', { groupProtocol: undefined, sessionTimeoutMs: 2000 })
      a.run(h)
      await until(() => a.processedUpTo(0) === 2n, 'A consuming')
      assert.equal(a.consumer.groupProtocol, 'classic')
      assert.equal(h.cluster.requests(ConsumerGroupHeartbeat).length, 0)
    })
  })

  test('a broker that lists ConsumerGroupHeartbeat but answers UNSUPPORTED_VERSION: groupProtocol left out falls back to classic with a warning', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.intercept(ConsumerGroupHeartbeat, () => ({ error: 35 }))
      const a = await h.member('a', 'consumer', { groupProtocol: undefined, sessionTimeoutMs: undefined, heartbeatIntervalMs: undefined })
      a.run(h)
      await until(() => a.processedUpTo(0) === 2n, 'A consuming with the classic protocol')
      assert.equal(a.consumer.groupProtocol, 'classic')
      const fallback = a.warnings.find(w => (w as KafkaTsError).kind === 'GROUP_PROTOCOL_FALLBACK') as Error | undefined
      assert.match(fallback?.message ?? 'no GROUP_PROTOCOL_FALLBACK warning', /has not enabled it.*groupProtocol: 'classic'/)
      assert.equal(a.error, undefined)
    })
  })

  test('the same broker with groupProtocol: \'consumer\': the consumer fails with an error that says how to go on', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.intercept(ConsumerGroupHeartbeat, () => ({ error: 35 }))
      const a = await h.member('a', 'consumer')
      a.run(h)
      await until(() => a.error !== undefined, 'A failing')
      assert.ok(a.error instanceof GroupProtocolUnsupportedError, String(a.error))
      assert.equal(a.error.code, 35)
      assert.match(a.error.message, /groupProtocol: 'classic'.*group\.coordinator\.rebalance\.protocols|group\.coordinator\.rebalance\.protocols.*groupProtocol: 'classic'/)
    })
  })

  for (const protocol of protocols) {
    test(`${protocol}: offsetReset applies to a group with no committed offset`, async () => {
      await withHarness({ partitions: 1, records: 4 }, async h => {
        const earliest = await h.member('e', protocol, { groupId: 'g-earliest', fromBeginning: undefined, offsetReset: 'earliest' })
        earliest.run(h)
        await until(() => earliest.processedUpTo(0) === 4n, 'offsetReset earliest reading from offset 0')
        assert.deepEqual(earliest.offsets(0), [0n, 1n, 2n, 3n])
        const none = await h.member('n', protocol, { groupId: 'g-none', fromBeginning: undefined, offsetReset: 'none' })
        none.run(h)
        await until(() => none.error !== undefined, 'offsetReset none failing')
        assert.equal((none.error as KafkaTsError).kind, 'NO_COMMITTED_OFFSET')
        assert.match((none.error as Error).message, /no committed offset for t-0/)
        assert.deepEqual(none.deliveries, [])
      })
    })

    test(`${protocol}: a static member fenced by another with its instanceId ends with StaticMembershipError (code and type)`, async () => {
      await withHarness({ partitions: 1, records: 2 }, async h => {
        const a = await h.member('a', protocol, { instanceId: 'i-1' })
        a.run(h)
        await until(() => a.processedUpTo(0) === 2n, 'A consuming')
        if (protocol === 'classic') {
          const b = await h.member('b', protocol, { instanceId: 'i-1' })
          b.run(h)
        } else {
          h.cluster.intercept(ConsumerGroupHeartbeat, r => r.clientId === 'a' ? { error: 82 } : undefined)
        }
        await until(() => a.error !== undefined, 'A failing')
        assert.ok(a.error instanceof StaticMembershipError, String(a.error))
        assert.equal(a.error.code, 82)
        assert.equal(a.error.type, 'FENCED_INSTANCE_ID')
        assert.match(a.error.message, /i-1/)
      })
    })
  }

  test('consumer protocol: a RegExp subscription is sent as SubscribedTopicRegex and matched on the broker (whole names)', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.createTopic({ name: 't2', partitions: 1 })
      h.cluster.createTopic({ name: 'xt', partitions: 1 })
      const a = await h.member('a', 'consumer', { topics: /t\d?/ })
      a.run(h)
      await until(() => a.consumer.assignment().length === 2, 'A holding t-0 and t2-0')
      assert.deepEqual(a.consumer.assignment().map(p => p.topic).sort(), ['t', 't2'])
      const joins = h.cluster.requests(ConsumerGroupHeartbeat).filter(r => r.clientId === 'a' && r.request.memberEpoch === 0)
      assert.equal(joins[0].request.subscribedTopicRegex, 't\\d?')
      assert.equal(joins[0].request.subscribedTopicNames, null)
    })
  })

  test('classic: a RegExp subscription matches whole names and picks up a new topic within topicsRefreshMs', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.createTopic({ name: 'xt', partitions: 1 })
      const a = await h.member('a', 'classic', { topics: /t\d?/, topicsRefreshMs: 200 })
      a.run(h)
      await until(() => a.consumer.assignment().length === 1, 'A holding t-0')
      h.cluster.createTopic({ name: 't3', partitions: 1 })
      await until(() => a.consumer.assignment().length === 2, 'A holding t3-0 too', 5000)
      assert.deepEqual(a.consumer.assignment().map(p => p.topic).sort(), ['t', 't3'])
    })
  })
})
