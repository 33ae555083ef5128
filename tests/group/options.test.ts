// What a group consumer accepts and how it starts: option checks at construction (a
// TypeError or RangeError naming the option, as client/validate.ts words them), the choice
// of group protocol (classic-only options, a broker that lists KIP-848 without running it),
// where a group without committed offsets starts (offsetReset), RegExp subscriptions, and
// the errors that end a member (the same class in both protocols).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { GroupConsumer, type GroupConsumerOptions } from '../../group/group-consumer'
import { GroupProtocolUnsupportedError, StaticMembershipError } from '../../group/errors'
import { ConsumerGroupHeartbeat } from '../../protocol/apis/consumer-group-heartbeat'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Heartbeat } from '../../protocol/apis/heartbeat'
import { JoinGroup } from '../../protocol/apis/join-group'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { BrokerError, KafkaTsError, ProtocolError } from '../../protocol/errors'
import { gate, protocols, withHarness } from './support'
import { Consumer, type AssignOptions, type RunOptions } from '../../consumer/consumer'
import { ShareConsumer, type ShareConsumerOptions, type ShareRunOptions } from '../../group/share-consumer'
import { runTransactional, type TransactionalRunOptions } from '../../group/transactional'
import { rangeAssignor } from '../../group/assignors'
import { deserializers } from '../../client/serializers'
import { FakeCluster } from '../../testing/index'
import { trackTimers } from '../support/timers'
import { waitFor } from '../support/wait'
import '../../index'

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

describe('every consumer option is checked: an unknown key is refused with the name meant, an enum value must be exact', () => {
  const client = new Client({ bootstrap: ['127.0.0.1:9'] })
  const group = { groupId: 'g', topics: ['t'] }
  const assign = [{ topic: 't', partition: 0, offset: 0n }]
  const refusedBy = (type: typeof TypeError | typeof RangeError, message: RegExp) => (error: Error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`)
    assert.match(error.message, message)
    return true
  }
  // The misspellings an adopter hit: each was accepted and ignored (or silently read aborted records).
  const misspelt: Array<[string, () => unknown, typeof TypeError | typeof RangeError, RegExp]> = [
    ['group: isolation \'read-committed\' (the CLI flag\'s spelling)', () => client.consumer({ ...group, isolation: 'read-committed' as 'read_committed' }), RangeError,
      /group consumer option isolation: expected one of 'read_uncommitted', 'read_committed', got "read-committed" \(a string\); did you mean 'read_committed'\?/],
    ['group: sesionTimeoutMs', () => client.consumer({ ...group, sesionTimeoutMs: 10_000 } as never), TypeError, /group consumer option sesionTimeoutMs is not an option; did you mean sessionTimeoutMs\?/],
    ['group: maxBytez', () => client.consumer({ ...group, maxBytez: 1024 } as never), TypeError, /group consumer option maxBytez is not an option; did you mean maxBytes\?/],
    ['group: autoCommitInterval (kafkajs\'s name)', () => client.consumer({ ...group, autoCommitInterval: 5000 } as never), TypeError, /autoCommitInterval is not an option; did you mean autoCommitIntervalMs\?/],
    ['group: a string maxWaitMs', () => client.consumer({ ...group, maxWaitMs: '100' as unknown as number }), TypeError, /group consumer option maxWaitMs: expected an integer/],
    ['group: autoCommit that is not a boolean', () => client.consumer({ ...group, autoCommit: 'no' } as never), TypeError, /group consumer option autoCommit: expected true or false/],
    ['direct: isolation \'read-committed\'', () => client.consumer({ assign, isolation: 'read-committed' as 'read_committed' }), RangeError, /consumer option isolation: .*did you mean 'read_committed'\?/],
    ['direct: maxBytez', () => client.consumer({ assign, maxBytez: 1024 } as never), TypeError, /consumer option maxBytez is not an option; did you mean maxBytes\?/],
    ['direct: a group option without groupId', () => client.consumer({ assign, sessionTimeoutMs: 10_000 } as never), TypeError, /consumer option sessionTimeoutMs is not an option/],
    ['direct: an assign entry with ofset', () => client.consumer({ assign: [{ topic: 't', partition: 0, ofset: 0n }] } as never), TypeError, /consumer option assign\[0\] ofset is not an option; did you mean offset\?/],
    ['direct: offsetReset \'smalest\'', () => client.consumer({ assign, offsetReset: 'smalest' as 'latest' }), RangeError, /offsetReset: expected one of 'earliest', 'latest', 'none', got "smalest"/],
    ['share: maxBytez', () => client.shareConsumer({ ...group, maxBytez: 1 } as never), TypeError, /shareConsumer option maxBytez is not an option; did you mean maxBytes\?/],
    ['share: acknowledgement \'explict\'', () => client.shareConsumer({ ...group, acknowledgement: 'explict' as 'explicit' }), RangeError, /acknowledgement: .*got "explict" \(a string\); did you mean 'explicit'\?/]
  ]
  for (const [what, make, type, message] of misspelt) {
    test(`${what}: ${type.name}`, () => { assert.throws(make, refusedBy(type, message)) })
  }

  test('run(), runTransactional(), commit() and seek() options: unknown keys and wrong types refused', async () => {
    const consumer = Consumer.assigned(client, { assign: [] })
    try {
      await assert.rejects(consumer.run({ eachBatch: () => {}, partitionsConcurently: 2 } as never), refusedBy(TypeError, /run\(\) option partitionsConcurently is not an option; did you mean partitionsConcurrently\?/))
      await assert.rejects(consumer.run({ eachBatch: () => {}, signal: 'stop' } as never), refusedBy(TypeError, /run\(\) option signal: expected an AbortSignal, got "stop"/))
      await assert.rejects(consumer.run({ eachBatch: () => {}, retry: { maxRetires: 3 } } as never), refusedBy(TypeError, /maxRetires is not an option; did you mean maxRetries\?/))
      assert.throws(() => consumer.seek({ topic: 't', partition: 0, ofset: 1n } as never), refusedBy(TypeError, /seek\(\) target ofset is not an option; did you mean offset\?/))
    } finally {
      await consumer.close()
    }
    const member = new GroupConsumer(client, { ...group, groupProtocol: 'classic', rebalanceTimeoutMs: 1000 })
    try {
      await assert.rejects(member.commit({ signall: AbortSignal.timeout(10) } as never), refusedBy(TypeError, /commit\(\) option signall is not an option; did you mean signal\?/))
      await assert.rejects(member.commitOffsets([], { signal: 5 } as never), refusedBy(TypeError, /commitOffsets\(\) option signal: expected an AbortSignal/))
      const producer = client.producer({ transactionalId: 'tx' })
      await assert.rejects(runTransactional(member, producer, { eachBtach: () => {} } as never), refusedBy(TypeError, /runTransactional option eachBtach is not an option; did you mean eachBatch\?/))
      await assert.rejects(runTransactional(member, producer, { eachBatch: () => {}, signal: 5 } as never), refusedBy(TypeError, /runTransactional option signal: expected an AbortSignal/))
    } finally {
      await member.close()
    }
  })
})

describe('every documented consumer option is accepted (the objects below must name every key of the options types)', { timeout: 60_000 }, () => {
  // Required<…> makes the compiler hold these to the options types: an option added to a
  // type must be added here, so the known-key lists are checked against every real option.
  type Every<T> = Required<Omit<T, 'recordMaker'>>
  const fetchOptions = {
    isolation: 'read_committed',
    maxWaitMs: 100,
    minBytes: 1,
    maxBytes: 1024 * 1024,
    maxPartitionBytes: 64 * 1024,
    maxBufferedBytes: 8 * 1024 * 1024,
    rack: 'r1',
    offsetReset: 'earliest',
    maxBatchRecords: 100,
    maxBatchBytes: 64 * 1024,
    maxProcessingMs: 60_000,
    emptyBatches: false,
    deserializers: { key: deserializers.string(), value: deserializers.string() }
  } as const

  test('direct, group and share consumers, run(), runTransactional()', async () => {
    const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
    const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'every-option', requestTimeoutMs: 5000 })
    try {
      const direct: Every<AssignOptions<string, string>> = { ...fetchOptions, assign: [{ topic: 't', partition: 0, offset: 'earliest', leaderEpoch: 0 }] }
      const consumer = client.consumer(direct)
      const signal = new AbortController().signal
      // `signal` is accepted by run() and runTransactional (another change makes it stop them).
      const run: Every<RunOptions<string, string>> & { signal: AbortSignal } = {
        eachBatch: undefined as never,
        eachRecord: () => {},
        partitionsConcurrently: 2,
        retry: { maxRetries: 1, initialMs: 10, maxMs: 100 },
        signal,
        concurrency: 4,
        ordering: 'key',
        maxWaiting: { records: 100, bytes: 1 << 20 },
        onDeadLetter: () => {},
        maxMetadataBytes: 1024
      }
      // partitionsConcurrently and concurrency exclude each other: one run() of each kind, each on its own consumer.
      const { concurrency, ordering, maxWaiting, onDeadLetter, maxMetadataBytes, ...perPartition } = run
      const running = consumer.run({ ...perPartition, eachBatch: undefined })
      const concurrentConsumer = client.consumer(direct)
      const runningConcurrently = concurrentConsumer.run({ eachRecord: run.eachRecord, retry: run.retry, signal, concurrency, ordering, maxWaiting, onDeadLetter, maxMetadataBytes })
      await consumer.close()
      await concurrentConsumer.close()
      await running
      await runningConcurrently

      const groupOptions: Every<GroupConsumerOptions<string, string>> = {
        ...fetchOptions,
        groupId: 'every-option',
        topics: ['t'],
        delivery: 'at-least-once',
        groupProtocol: 'classic',
        assignor: rangeAssignor,
        instanceId: 'i-1',
        sessionTimeoutMs: 6000,
        rebalanceTimeoutMs: 3000,
        heartbeatIntervalMs: 500,
        autoCommit: true,
        autoCommitIntervalMs: 1000,
        topicsRefreshMs: 1000,
        fromBeginning: true,
        onAssigned: () => {},
        onRevoked: () => {},
        onLost: () => {}
      }
      const member = client.consumer(groupOptions)
      const producer = client.producer({ transactionalId: 'every-option' })
      const transactional: Every<TransactionalRunOptions> = { eachBatch: () => {}, signal: AbortSignal.abort(), stop: 'finish-batch' }
      await runTransactional(member as unknown as GroupConsumer, producer, transactional)
      await member.close()
      await producer.close()

      const shareOptions: Every<ShareConsumerOptions> = {
        groupId: 'every-option-share',
        topics: ['t'],
        acknowledgement: 'explicit',
        maxRecords: 100,
        maxWaitMs: 100,
        maxBytes: 1024 * 1024,
        onHandlerError: 'reject',
        deadLetter: { afterDeliveries: 3, handler: () => {} },
        rack: 'r1',
        signal
      }
      const share = client.shareConsumer(shareOptions)
      const shareRun: Every<ShareRunOptions> = { eachRecord: () => {}, eachBatch: undefined as never, concurrency: 2, signal: AbortSignal.abort() }
      await share.run({ ...shareRun, eachBatch: undefined })
      await share.close()
      assert.ok(share instanceof ShareConsumer)
    } finally {
      await client.close()
      await cluster.close()
    }
  })
})

describe('every error is named after its class', () => {
  test('KafkaTsError and its subclasses, including those that do not set a name', () => {
    assert.equal(new KafkaTsError('CONNECTION', 'x').name, 'KafkaTsError')
    assert.equal(new BrokerError(3, 'x').name, 'BrokerError')
    assert.equal(new ProtocolError('x').name, 'ProtocolError')
    assert.equal(new StaticMembershipError(82, 'g', 'i').name, 'StaticMembershipError')
    assert.equal(new GroupProtocolUnsupportedError(35, 'g').name, 'GroupProtocolUnsupportedError')
    class Unnamed extends KafkaTsError {}
    assert.equal(new Unnamed('CONNECTION', 'y').name, 'Unnamed')
  })
})

describe('group consumer start-up against the fake cluster', { timeout: 60_000 }, () => {
  test('topics given as one string is that one topic', async () => {
    await withHarness({ partitions: 1, records: 3 }, async h => {
      const a = await h.member('a', 'consumer', { topics: h.topic })
      a.run(h)
      await waitFor('A consuming the topic', () => a.processedUpTo(0) === 3n)
    })
  })

  test('KIP-848 with sessionTimeoutMs and heartbeatIntervalMs: a warning says the broker sets them', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'consumer', { sessionTimeoutMs: 2000, heartbeatIntervalMs: 100 })
      a.run(h)
      await waitFor('A consuming', () => a.processedUpTo(0) === 2n)
      const said = a.warnings.find(w => (w as KafkaTsError).kind === 'CLASSIC_ONLY_OPTION') as Error | undefined
      assert.match(said?.message ?? 'no CLASSIC_ONLY_OPTION warning', /sessionTimeoutMs, heartbeatIntervalMs: classic-protocol only and ignored with KIP-848.*groupProtocol: 'classic'/)
    })
  })

  test('groupProtocol left out with a classic-only option: the classic protocol', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'classic', { groupProtocol: undefined, sessionTimeoutMs: 2000 })
      a.run(h)
      await waitFor('A consuming', () => a.processedUpTo(0) === 2n)
      assert.equal(a.consumer.groupProtocol, 'classic')
      assert.equal(h.cluster.requests(ConsumerGroupHeartbeat).length, 0)
    })
  })

  test('a broker that lists ConsumerGroupHeartbeat but answers UNSUPPORTED_VERSION: groupProtocol left out falls back to classic with a warning', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.intercept(ConsumerGroupHeartbeat, () => ({ error: 35 }))
      const a = await h.member('a', 'consumer', { groupProtocol: undefined, sessionTimeoutMs: undefined, heartbeatIntervalMs: undefined })
      a.run(h)
      await waitFor('A consuming with the classic protocol', () => a.processedUpTo(0) === 2n)
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
      await waitFor('A failing', () => a.error !== undefined)
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
        await waitFor('offsetReset earliest reading from offset 0', () => earliest.processedUpTo(0) === 4n)
        assert.deepEqual(earliest.offsets(0), [0n, 1n, 2n, 3n])
        const none = await h.member('n', protocol, { groupId: 'g-none', fromBeginning: undefined, offsetReset: 'none' })
        none.run(h)
        await waitFor('offsetReset none failing', () => none.error !== undefined)
        assert.equal((none.error as KafkaTsError).kind, 'NO_COMMITTED_OFFSET')
        assert.match((none.error as Error).message, /no committed offset for t-0/)
        assert.deepEqual(none.deliveries, [])
      })
    })

    test(`${protocol}: a static member fenced by another with its instanceId ends with StaticMembershipError (code and type)`, async () => {
      await withHarness({ partitions: 1, records: 2 }, async h => {
        const a = await h.member('a', protocol, { instanceId: 'i-1' })
        a.run(h)
        await waitFor('A consuming', () => a.processedUpTo(0) === 2n)
        if (protocol === 'classic') {
          const b = await h.member('b', protocol, { instanceId: 'i-1' })
          b.run(h)
        } else {
          h.cluster.intercept(ConsumerGroupHeartbeat, r => r.clientId === 'a' ? { error: 82 } : undefined)
        }
        await waitFor('A failing', () => a.error !== undefined)
        assert.ok(a.error instanceof StaticMembershipError, String(a.error))
        assert.equal(a.error.code, 82)
        assert.equal(a.error.type, 'FENCED_INSTANCE_ID')
        assert.match(a.error.message, /i-1/)
      })
    })
  }

  test('a consumer closed while it probes ApiVersions starts no membership and leaves no auto-commit timer', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const answer = gate()
      // The commit timers this consumer makes (its own interval, told apart by the period).
      const commitTimers = trackTimers('interval', 4321)
      try {
        // Protocol left out (and no classic-only option): the consumer first asks ApiVersions.
        // Its Client is connected already (h.member loads metadata first): only the probe is held.
        const a = await h.member('a', 'consumer', { groupProtocol: undefined, sessionTimeoutMs: undefined, heartbeatIntervalMs: undefined, autoCommitIntervalMs: 4321 })
        let probing = false
        h.cluster.intercept(ApiVersions, r => {
          if (r.clientId !== 'a') return undefined
          probing = true
          return { hold: answer.promise }
        })
        await waitFor('the consumer asking ApiVersions', () => probing)
        const closing = a.consumer.close()
        answer.release()
        await closing
        assert.equal(commitTimers.live.size, 0, 'an auto-commit interval outlived close()')
        assert.equal(a.consumer.groupProtocol, undefined, 'a membership was started after close()')
        const joins = h.cluster.requests().filter(r => r.clientId === 'a' && (r.apiName === 'ConsumerGroupHeartbeat' || r.apiName === 'JoinGroup'))
        assert.deepEqual(joins.map(r => r.apiName), [])
      } finally {
        commitTimers.restore()
      }
    })
  })

  test('classic: FENCED_INSTANCE_ID is fatal wherever it comes (a heartbeat during a revoke, a commit, a join), never a rejoin', async () => {
    const staticFence = (member: { error: unknown }): void => {
      assert.ok(member.error instanceof StaticMembershipError, String(member.error))
      assert.equal(member.error.code, 82)
      assert.match(member.error.message, /instanceId "i-1"/)
    }
    // A heartbeat sent while an eager revoke waits for the handler (#whileHeartbeating).
    await withHarness({ partitions: 2, records: 2 }, async h => {
      const a = await h.member('a', 'classic', { instanceId: 'i-1', assignor: 'range' })
      const held = h.gate()
      a.handler = async () => { await held.promise }
      a.run(h)
      await waitFor('A holding a batch', () => a.deliveries.length > 0)
      let fenced = false
      a.consumer.once('rebalancing', () => {
        h.cluster.intercept(Heartbeat, r => {
          if (r.clientId !== 'a') return undefined
          fenced = true
          return { error: 82 }
        })
      })
      const b = await h.member('b', 'classic', { instanceId: 'i-2', assignor: 'range' })
      b.run(h)
      await waitFor('a heartbeat of A during its revoke answered FENCED_INSTANCE_ID', () => fenced, { timeoutMs: 10_000 })
      const joinsBefore = h.cluster.requests(JoinGroup).filter(r => r.clientId === 'a').length
      held.release()
      await waitFor('A failing', () => a.error !== undefined)
      staticFence(a)
      assert.equal(h.cluster.requests(JoinGroup).filter(r => r.clientId === 'a').length, joinsBefore, 'A rejoined after FENCED_INSTANCE_ID')
    })
    // A commit answered FENCED_INSTANCE_ID (onFencedResponse).
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'classic', { instanceId: 'i-1' })
      a.run(h)
      await waitFor('A consuming', () => a.processedUpTo(0) === 2n)
      h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' ? { error: 82 } : undefined)
      const refused = await a.consumer.commit()
      assert.equal(refused.length, 1)
      await waitFor('A failing', () => a.error !== undefined)
      staticFence(a)
      assert.equal(a.lostEvents.length, 0, 'A was treated as fenced and rejoined')
    })
    // The first JoinGroup answered FENCED_INSTANCE_ID.
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.intercept(JoinGroup, r => r.clientId === 'a' ? { error: 82 } : undefined)
      const a = await h.member('a', 'classic', { instanceId: 'i-1' })
      a.run(h)
      await waitFor('A failing', () => a.error !== undefined)
      staticFence(a)
    })
  })

  test('consumer protocol: a commit answered FENCED_INSTANCE_ID ends the member with StaticMembershipError, as a heartbeat does', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      const a = await h.member('a', 'consumer', { instanceId: 'i-1' })
      a.run(h)
      await waitFor('A consuming', () => a.processedUpTo(0) === 2n)
      h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' ? { error: 82 } : undefined)
      await a.consumer.commit()
      await waitFor('A failing', () => a.error !== undefined)
      assert.ok(a.error instanceof StaticMembershipError, String(a.error))
      assert.equal(a.error.code, 82)
    })
  })

  test('classic: heartbeat errors during a revoke are not dropped: a retriable one is a warning, another ends the member', async () => {
    await withHarness({ partitions: 2, records: 2 }, async h => {
      const a = await h.member('a', 'classic', { assignor: 'range' })
      const held = h.gate()
      a.handler = async () => { await held.promise }
      a.run(h)
      await waitFor('A holding a batch', () => a.deliveries.length > 0)
      let answered = 0
      a.consumer.once('rebalancing', () => {
        // COORDINATOR_LOAD_IN_PROGRESS is retried by the coordinator; NOT_ENOUGH_REPLICAS (19, retriable) comes through, then GROUP_AUTHORIZATION_FAILED (30).
        h.cluster.intercept(Heartbeat, r => {
          if (r.clientId !== 'a') return undefined
          return { error: answered++ < 2 ? 19 : 30 }
        })
      })
      const b = await h.member('b', 'classic', { assignor: 'range' })
      b.run(h)
      await waitFor('heartbeats of A during its revoke answered with errors', () => answered > 2, { timeoutMs: 10_000 })
      held.release()
      await waitFor('A failing', () => a.error !== undefined)
      assert.ok(a.error instanceof BrokerError && a.error.code === 30, String(a.error))
      const warned = a.warnings.filter(w => (w as KafkaTsError).kind === 'HEARTBEAT_FAILED') as Error[]
      assert.ok(warned.length >= 2, `warnings: ${a.warnings.map(String).join('; ')}`)
      assert.match(warned[0].message, /NOT_ENOUGH_REPLICAS.*session timeout/)
    })
  })

  test('consumer protocol: a RegExp subscription is sent as SubscribedTopicRegex and matched on the broker (whole names)', async () => {
    await withHarness({ partitions: 1, records: 2 }, async h => {
      h.cluster.createTopic({ name: 't2', partitions: 1 })
      h.cluster.createTopic({ name: 'xt', partitions: 1 })
      const a = await h.member('a', 'consumer', { topics: /t\d?/ })
      a.run(h)
      await waitFor('A holding t-0 and t2-0', () => a.consumer.assignment().length === 2)
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
      await waitFor('A holding t-0', () => a.consumer.assignment().length === 1)
      h.cluster.createTopic({ name: 't3', partitions: 1 })
      await waitFor('A holding t3-0 too', () => a.consumer.assignment().length === 2, { timeoutMs: 5000 })
      assert.deepEqual(a.consumer.assignment().map(p => p.topic).sort(), ['t', 't3'])
    })
  })
})
