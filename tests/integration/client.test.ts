// The low-level API against a real Kafka 4.4 broker: version negotiation, every
// implemented API at the lowest and highest version the broker accepts, produceRaw and
// fetchRaw with each codec, admin over 100 topics, and failures against a dead broker.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import { randomUUID } from 'node:crypto'
import { Client } from '../../index'
import { Connection } from '../../client/connection'
import { ConnectionError, RequestTimeoutError } from '../../client/errors'
import type { AnyApi } from '../../protocol/api'

/** The response of whichever API a sample below is for (the table covers every API, as AnyApi does). */
type AnyResponse = ReturnType<AnyApi['decodeResponse']>
import { allApis } from '../../protocol/apis/index'
import { Produce } from '../../protocol/apis/produce'
import { Fetch } from '../../protocol/apis/fetch'
import { ListOffsets } from '../../protocol/apis/list-offsets'
import { Metadata } from '../../protocol/apis/metadata'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { encodeRecordBatch, type RecordInput } from '../../protocol/record-batch'
import type { CompressionCodec } from '../../protocol/compression'
import * as fs from 'node:fs'
import { sharedBootstrap, startCluster, type KafkaCluster, type KafkaNode } from '../broker/kafka'
import { requireJavaOrSkip } from './support'
import { pollUntil } from '../support/wait'
import { internal } from '../../client/internal'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const ZERO_UUID = '00000000-0000-0000-0000-000000000000'
const unique = (name: string): string => `${name}-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`

describe('low-level API against a real broker', { skip }, () => {
  let client: Client
  let topic: string
  let topicId: string

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'kafkats-integration' })
    topic = unique('lowlevel')
    await client.admin.createTopics([{ topic, numPartitions: 3, replicationFactor: 1 }])
    topicId = client.metadata.topic(topic)!.topicId
  })

  after(async () => {
    await client.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
    await client.close()
  })

  test('ApiVersions: the broker speaks every API kafkats implements, and overlaps our range', async () => {
    const nodeId = client.metadata.brokers[0].nodeId
    const connection = await client[internal].connection(nodeId, 'admin')
    for (const api of allApis) {
      const range = connection.brokerVersions(api.key)
      assert.ok(range !== undefined, `broker does not list ${api.name}`)
      const version = connection.versionFor(api)
      assert.ok(version >= api.minVersion && version <= api.maxVersion, `${api.name} negotiated v${version}`)
    }
    const response = await client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: 'test' })
    assert.equal(response.errorCode, 0)
    assert.ok(response.apiKeys.length > 20)
  })

  // COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE,
  // INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, TRANSACTIONAL_ID_NOT_FOUND
  const UNKNOWN_TRANSACTION_ERRORS = [15, 16, 47, 48, 49, 90, 105]
  const assertOneOf = (code: number, allowed: number[]): void => assert.ok(allowed.includes(code), `error ${code}, expected one of ${allowed.join(', ')}`)

  // A request body per API and version that the broker accepts, and a check of its answer.
  const samples = (): Record<string, { body: (version: number) => unknown, check: (response: AnyResponse, version: number) => void }> => ({
    ApiVersions: {
      body: () => ({ clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' }),
      check: r => assert.equal(r.errorCode, 0)
    },
    Metadata: {
      body: () => ({ topics: [{ name: topic, topicId: ZERO_UUID }], allowAutoTopicCreation: false }),
      check: r => { assert.equal(r.topics[0].errorCode, 0); assert.equal(r.topics[0].partitions.length, 3) }
    },
    Produce: {
      body: version => ({
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [{ name: version >= 13 ? '' : topic, topicId: version >= 13 ? topicId : ZERO_UUID, partitionData: [{ index: 0, records: producedBatch }] }]
      }),
      check: (r, version) => assert.equal(r.responses[0].partitionResponses[0].errorCode, 0, `v${version}`)
    },
    Fetch: {
      body: version => ({
        replicaId: -1, maxWaitMs: 10, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: version >= 13 ? '' : topic, topicId: version >= 13 ? topicId : ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: ''
      }),
      check: r => { assert.equal(r.errorCode, 0); assert.equal(r.responses[0].partitions[0].errorCode, 0); assert.ok(r.responses[0].partitions[0].highWatermark > 0n) }
    },
    ListOffsets: {
      body: () => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }], timeoutMs: 1000 }),
      check: r => { assert.equal(r.topics[0].partitions[0].errorCode, 0); assert.ok(r.topics[0].partitions[0].offset > 0n) }
    },
    FindCoordinator: {
      body: version => version >= 4 ? { keyType: 0, coordinatorKeys: ['kafkats-group'] } : { key: 'kafkats-group', keyType: 0 },
      check: (r, version) => {
        // The first lookup may find __consumer_offsets still being created.
        const code = version >= 4 ? r.coordinators[0].errorCode : r.errorCode
        assert.ok(code === 0 || code === 15, `error code ${code}`)
      }
    },
    CreateTopics: {
      body: () => ({ topics: [{ name: unique('validate'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }),
      check: r => assert.equal(r.topics[0].errorCode, 0)
    },
    DeleteTopics: {
      body: version => version >= 6 ? { topics: [{ name: unique('absent'), topicId: ZERO_UUID }], timeoutMs: 5000 } : { topicNames: [unique('absent')], timeoutMs: 5000 },
      check: r => assert.equal(r.responses[0].errorCode, 3) // UNKNOWN_TOPIC_OR_PARTITION: the request was understood
    },
    CreatePartitions: {
      body: () => ({ topics: [{ name: topic, count: 3, assignments: null }], timeoutMs: 5000, validateOnly: true }),
      check: r => assert.equal(r.results[0].errorCode, 37) // INVALID_PARTITIONS: already 3, understood
    },
    DescribeConfigs: {
      body: () => ({ resources: [{ resourceType: 2, resourceName: topic, configurationKeys: ['cleanup.policy'] }], includeSynonyms: false, includeDocumentation: false }),
      check: r => { assert.equal(r.results[0].errorCode, 0); assert.equal(r.results[0].configs[0].value, 'delete') }
    },
    IncrementalAlterConfigs: {
      body: () => ({ resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: 'retention.ms', configOperation: 0, value: '86400000' }] }], validateOnly: true }),
      check: r => assert.equal(r.responses[0].errorCode, 0)
    },
    InitProducerId: {
      body: () => ({ transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.producerId >= 0n) }
    },
    // Group APIs: a fresh group id per call, answered with the code that shows the request was understood.
    JoinGroup: {
      body: () => ({ groupId: unique('sample'), sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] }),
      check: (r, version) => assert.equal(r.errorCode, version >= 4 ? 79 : 0) // MEMBER_ID_REQUIRED from v4
    },
    SyncGroup: {
      body: () => ({ groupId: unique('sample'), generationId: 1, memberId: 'nobody', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] }),
      check: r => assert.equal(r.errorCode, 25) // UNKNOWN_MEMBER_ID
    },
    Heartbeat: {
      body: () => ({ groupId: unique('sample'), generationId: 1, memberId: 'nobody', groupInstanceId: null }),
      check: r => assert.equal(r.errorCode, 25)
    },
    LeaveGroup: {
      body: version => version >= 3 ? { groupId: unique('sample'), members: [{ memberId: 'nobody', groupInstanceId: null }] } : { groupId: unique('sample'), memberId: 'nobody' },
      check: (r, version) => assert.equal(version >= 3 ? r.members[0]?.errorCode ?? r.errorCode : r.errorCode, 25)
    },
    OffsetCommit: {
      body: version => ({
        groupId: unique('sample'), generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
        topics: [version >= 10 ? { topicId, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] } : { name: topic, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }]
      }),
      check: r => assert.equal(r.topics[0].partitions[0].errorCode, 0)
    },
    OffsetFetch: {
      body: version => version >= 8
        ? { groups: [{ groupId: unique('sample'), topics: [version >= 10 ? { topicId, partitionIndexes: [0] } : { name: topic, partitionIndexes: [0] }] }] }
        : { groupId: unique('sample'), topics: [{ name: topic, partitionIndexes: [0] }] },
      check: (r, version) => {
        const partition = version >= 8 ? r.groups[0].topics[0].partitions[0] : r.topics[0].partitions[0]
        assert.equal(partition.committedOffset, -1n)
      }
    },
    ConsumerGroupHeartbeat: {
      body: () => ({ groupId: unique('sample'), memberId: randomUUID(), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 10_000, subscribedTopicNames: [topic], serverAssignor: null, topicPartitions: [] }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.memberEpoch > 0) }
    },
    ConsumerGroupDescribe: {
      body: () => ({ groupIds: [unique('sample')] }),
      check: r => assert.equal(r.groups[0].errorCode, 69) // GROUP_ID_NOT_FOUND
    },
    DescribeGroups: {
      body: () => ({ groups: [unique('sample')] }),
      check: r => assert.equal(r.groups[0].errorCode === 0 || r.groups[0].errorCode === 69, true)
    },
    ListGroups: {
      body: () => ({}),
      check: r => assert.equal(r.errorCode, 0)
    },
    OffsetForLeaderEpoch: {
      body: () => ({ replicaId: -1, topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] }),
      check: r => assert.equal(r.topics[0].partitions[0].errorCode, 0)
    },
    DeleteGroups: {
      body: () => ({ groupsNames: [unique('sample')] }),
      check: r => assert.equal(r.results[0].errorCode, 69)
    },
    // The admin APIs: a request each that the broker can answer on a plain listener
    // without changing the cluster (or changing only a unique, throwaway name).
    DescribeCluster: {
      body: () => ({ includeClusterAuthorizedOperations: false, endpointType: 1 }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.brokers.length >= 1) }
    },
    DescribeAcls: {
      body: () => ({ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }),
      check: r => assert.equal(r.errorCode, 54) // SECURITY_DISABLED: this listener's broker has no authorizer
    },
    CreateAcls: {
      body: () => ({ creations: [{ resourceType: 2, resourceName: topic, resourcePatternType: 3, principal: 'User:sample', host: '*', operation: 3, permissionType: 3 }] }),
      check: r => assert.equal(r.results[0].errorCode, 54)
    },
    DeleteAcls: {
      body: () => ({ filters: [{ resourceTypeFilter: 2, resourceNameFilter: topic, patternTypeFilter: 3, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] }),
      check: r => assert.equal(r.filterResults[0].errorCode, 54)
    },
    DescribeClientQuotas: {
      body: () => ({ components: [{ entityType: 'client-id', matchType: 2, match: null }], strict: false }),
      check: r => assert.equal(r.errorCode, 0)
    },
    AlterClientQuotas: {
      body: () => ({ entries: [{ entity: [{ entityType: 'client-id', entityName: unique('sample') }], ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] }], validateOnly: true }),
      check: r => assert.equal(r.entries[0].errorCode, 0)
    },
    DescribeUserScramCredentials: {
      body: () => ({ users: [{ name: unique('nobody') }] }),
      check: r => { assert.equal(r.errorCode, 0); assert.equal(r.results[0].errorCode, 91) } // RESOURCE_NOT_FOUND
    },
    AlterUserScramCredentials: {
      body: () => ({ deletions: [], upsertions: [{ name: unique('sample'), mechanism: 1, iterations: 4096, salt: Buffer.alloc(16, 1), saltedPassword: Buffer.alloc(32, 2) }] }),
      check: r => assert.equal(r.results[0].errorCode, 0)
    },
    DeleteRecords: {
      body: () => ({ topics: [{ name: topic, partitions: [{ partitionIndex: 2, offset: 0n }] }], timeoutMs: 10_000 }),
      check: r => { assert.equal(r.topics[0].partitions[0].errorCode, 0); assert.equal(r.topics[0].partitions[0].lowWatermark, 0n) }
    },
    ElectLeaders: {
      body: () => ({ electionType: 0, topicPartitions: [{ topic, partitions: [0] }], timeoutMs: 10_000 }),
      check: r => assert.equal(r.replicaElectionResults[0].partitionResult[0].errorCode, 84) // ELECTION_NOT_NEEDED
    },
    AlterPartitionReassignments: {
      body: () => ({ timeoutMs: 10_000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, replicas: null }] }] }),
      check: r => { assert.equal(r.errorCode, 0); assert.equal(r.responses[0].partitions[0].errorCode, 85) } // NO_REASSIGNMENT_IN_PROGRESS
    },
    ListPartitionReassignments: {
      body: () => ({ timeoutMs: 10_000, topics: null }),
      check: r => assert.equal(r.errorCode, 0)
    },
    OffsetDelete: {
      body: () => ({ groupId: unique('sample'), topics: [{ name: topic, partitions: [{ partitionIndex: 0 }] }] }),
      check: r => assert.equal(r.errorCode, 69) // GROUP_ID_NOT_FOUND
    },
    DescribeLogDirs: {
      body: () => ({ topics: [{ topic, partitions: [0, 1, 2] }] }),
      check: r => { assert.equal(r.errorCode, 0); assert.equal(r.results[0].errorCode, 0); assert.equal(r.results[0].topics[0].partitions.length, 3) }
    },
    AlterReplicaLogDirs: {
      body: () => ({ dirs: [{ path: '/no/such/kafkats/dir', topics: [{ name: topic, partitions: [0] }] }] }),
      check: r => assert.equal(r.results[0].partitions[0].errorCode, 57) // LOG_DIR_NOT_FOUND
    },
    DescribeQuorum: {
      body: () => ({ topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.topics[0].partitions[0].leaderId >= 0) }
    },
    UpdateFeatures: {
      body: () => ({ timeoutMs: 10_000, featureUpdates: [], validateOnly: true }),
      check: r => assert.equal(r.errorCode, 0)
    },
    DescribeTopicPartitions: {
      body: () => ({ topics: [{ name: topic }], responsePartitionLimit: 2000, cursor: null }),
      check: r => { assert.equal(r.topics[0].errorCode, 0); assert.equal(r.topics[0].partitions.length, 3) }
    },
    // Delegation tokens need an authenticated (SASL) connection and a secret key on the broker.
    CreateDelegationToken: {
      body: () => ({ ownerPrincipalType: null, ownerPrincipalName: null, renewers: [], maxLifetimeMs: -1n }),
      check: r => assert.ok([61, 64].includes(r.errorCode), `error ${r.errorCode as number}`)
    },
    RenewDelegationToken: {
      body: () => ({ hmac: Buffer.from('nothing'), renewPeriodMs: -1n }),
      check: r => assert.ok([61, 64].includes(r.errorCode), `error ${r.errorCode as number}`)
    },
    ExpireDelegationToken: {
      body: () => ({ hmac: Buffer.from('nothing'), expiryTimePeriodMs: -1n }),
      check: r => assert.ok([61, 64].includes(r.errorCode), `error ${r.errorCode as number}`)
    },
    DescribeDelegationToken: {
      body: () => ({ owners: null }),
      check: r => assert.ok([0, 61, 64].includes(r.errorCode), `error ${r.errorCode as number}`)
    },
    ListConfigResources: {
      body: () => ({ resourceTypes: [2] }),
      check: (r, version) => { assert.equal(r.errorCode, 0); if (version >= 1) assert.ok(r.configResources.some((c: { resourceName: string }) => c.resourceName === topic)) }
    },
    ShareGroupDescribe: {
      body: () => ({ groupIds: [unique('sample')], includeAuthorizedOperations: false }),
      check: r => assert.equal(r.groups[0].errorCode, 69)
    },
    StreamsGroupHeartbeat: {
      body: () => ({
        groupId: unique('sample-streams'), memberId: randomUUID(), memberEpoch: 0, endpointInformationEpoch: 0, rebalanceTimeoutMs: 10_000, processId: randomUUID(), clientTags: [], activeTasks: [], standbyTasks: [], warmupTasks: [],
        topology: { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: [topic], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] }
      }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.memberEpoch > 0); assert.ok(r.heartbeatIntervalMs > 0) }
    },
    WriteTxnMarkers: {
      // A topic that does not exist: nothing is written, the leader answers per partition.
      body: () => ({ markers: [{ producerId: 999_999n, producerEpoch: 0, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: unique('no-such-topic'), partitionIndexes: [0] }] }] }),
      check: r => assert.equal(r.markers[0].topics[0].partitions[0].errorCode, 3)
    },
    StreamsGroupDescribe: {
      body: () => ({ groupIds: [unique('sample')], includeAuthorizedOperations: false }),
      check: r => assert.equal(r.groups[0].errorCode, 69)
    },
    // Share groups (KIP-932, on by default on a 4.4 cluster).
    ShareGroupHeartbeat: {
      body: () => ({ groupId: unique('sample'), memberId: randomUUID(), memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.memberEpoch > 0) }
    },
    ShareFetch: {
      // Opening a share session (epoch 0) is accepted; nothing is acquired without waiting.
      body: () => ({ groupId: unique('sample'), memberId: randomUUID(), shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [] }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(r.responses.every((t: { partitions: Array<{ acquiredRecords: unknown[] }> }) => t.partitions.every(p => p.acquiredRecords.length === 0))) }
    },
    ShareAcknowledge: {
      // Acknowledging needs an open share session: epoch 1 of none is refused.
      body: () => ({ groupId: unique('sample'), memberId: randomUUID(), shareSessionEpoch: 1, topics: [] }),
      check: r => assertOneOf(r.errorCode, [122, 123]) // SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH
    },
    DescribeShareGroupOffsets: {
      body: () => ({ groups: [{ groupId: unique('sample'), topics: [{ topicName: topic, partitions: [0] }] }] }),
      // A group without state for the partition: start offset and lag unknown (-1).
      check: r => { assert.equal(r.groups[0].errorCode, 0); assert.deepEqual(r.groups[0].topics[0].partitions.map((p: { startOffset: bigint, errorCode: number }) => [p.startOffset, p.errorCode]), [[-1n, 0]]) }
    },
    AlterShareGroupOffsets: {
      // An unknown (so empty) group may be given start offsets.
      body: () => ({ groupId: unique('sample'), topics: [{ topicName: topic, partitions: [{ partitionIndex: 0, startOffset: 0n }] }] }),
      check: r => assert.equal(r.errorCode, 0)
    },
    DeleteShareGroupOffsets: {
      body: () => ({ groupId: unique('sample'), topics: [{ topicName: topic }] }),
      check: r => assertOneOf(r.errorCode, [0, 69])
    },
    // Transactions, for a transactional id the coordinator has never seen: each API answers
    // with the error Kafka gives for that (or, until __transaction_state exists, that the
    // coordinator is not available yet).
    AddPartitionsToTxn: {
      body: version => version >= 4
        ? { transactions: [{ transactionalId: unique('sample-txn'), producerId: 999_999n, producerEpoch: 0, verifyOnly: false, topics: [{ name: topic, partitions: [0] }] }] }
        : { v3AndBelowTransactionalId: unique('sample-txn'), v3AndBelowProducerId: 999_999n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [{ name: topic, partitions: [0] }] },
      check: (r, version) => {
        const results = version >= 4 ? r.resultsByTransaction[0].topicResults : r.resultsByTopicV3AndBelow
        if (version >= 4) assert.equal(r.errorCode, 0)
        assertOneOf(results[0].resultsByPartition[0].partitionErrorCode, UNKNOWN_TRANSACTION_ERRORS)
      }
    },
    AddOffsetsToTxn: {
      body: () => ({ transactionalId: unique('sample-txn'), producerId: 999_999n, producerEpoch: 0, groupId: unique('sample') }),
      check: r => assertOneOf(r.errorCode, UNKNOWN_TRANSACTION_ERRORS)
    },
    EndTxn: {
      body: () => ({ transactionalId: unique('sample-txn'), producerId: 999_999n, producerEpoch: 0, committed: false }),
      check: r => assertOneOf(r.errorCode, UNKNOWN_TRANSACTION_ERRORS)
    },
    TxnOffsetCommit: {
      body: version => ({
        transactionalId: unique('sample-txn'), groupId: unique('sample'), producerId: 999_999n, producerEpoch: 0,
        topics: [version >= 6 ? { topicId, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] } : { name: topic, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }]
      }),
      check: r => assertOneOf(r.topics[0].partitions[0].errorCode, UNKNOWN_TRANSACTION_ERRORS)
    },
    DescribeProducers: {
      body: () => ({ topics: [{ name: topic, partitionIndexes: [0] }] }),
      check: r => { assert.equal(r.topics[0].partitions[0].errorCode, 0); assert.ok(Array.isArray(r.topics[0].partitions[0].activeProducers)) }
    },
    DescribeTransactions: {
      body: () => ({ transactionalIds: [unique('sample-txn')] }),
      check: r => assertOneOf(r.transactionStates[0].errorCode, [15, 16, 105]) // COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, TRANSACTIONAL_ID_NOT_FOUND
    },
    ListTransactions: {
      body: () => ({ stateFilters: [], producerIdFilters: [] }),
      check: r => { assert.equal(r.errorCode, 0); assert.ok(Array.isArray(r.transactionStates)) }
    },
    SaslHandshake: {
      body: () => ({ mechanism: 'PLAIN' }),
      // A PLAINTEXT listener has no SASL: the broker answers in the same version, with an error.
      check: r => assert.notEqual(r.errorCode, 0)
    },
    SaslAuthenticate: {
      body: () => ({ authBytes: Buffer.from('x') }),
      check: r => assert.notEqual(r.errorCode, 0)
    }
  })
  let producedBatch: Buffer

  test('every implemented API at its lowest and highest version the broker accepts', async () => {
    producedBatch = await encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] })
    const table = samples()
    const nodeId = client.metadata.partition(topic, 0)!.leaderId
    for (const api of allApis as Array<AnyApi>) {
      const sample = table[api.name]
      assert.ok(sample !== undefined, `no sample request for ${api.name}: add one to this test`)
      const connection = await Connection.connect({ host: client[internal].brokers.broker(nodeId)!.host, port: client[internal].brokers.broker(nodeId)!.port, clientId: 'kafkats-versions' })
      try {
        const range = connection.brokerVersions(api.key)!
        const lowest = Math.max(api.minVersion, range.minVersion)
        const highest = Math.min(api.maxVersion, range.maxVersion)
        for (const version of new Set([lowest, highest])) {
          // SASL requests are answered and then the broker closes the connection: one per connection.
          const conn = api.name.startsWith('Sasl') ? await Connection.connect({ host: connection.host, port: connection.port, clientId: 'kafkats-versions' }) : connection
          try {
            // A fresh broker loads its coordinators first: COORDINATOR_LOAD_IN_PROGRESS / NOT_AVAILABLE for a moment.
            const response = await pollUntil(async () => await conn.send(api, sample.body(version), { version }), r => ![14, 15].includes(r.errorCode ?? (r.coordinators?.[0]?.errorCode)), { intervalMs: 200 })
            sample.check(response, version)
          } catch (error) {
            throw new Error(`${api.name} v${version}: ${(error as Error).message}`, { cause: error })
          } finally {
            if (conn !== connection) conn.close()
          }
        }
      } finally {
        connection.close()
      }
    }
  })

  const codecs: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
  for (const compression of codecs) {
    test(`produceRaw with ${compression} at acks=all, then fetchRaw returns the same records`, async () => {
      const partition = codecs.indexOf(compression) % 3
      const base = BigInt(Date.now()) - 10_000n
      const records: RecordInput[] = []
      for (let i = 0; i < 50; i++) {
        records.push({
          key: i % 7 === 0 ? null : Buffer.from(`key-${i}`),
          value: i % 11 === 5 ? null : Buffer.from(`value-${compression}-${i}-`.repeat(1 + (i % 5))),
          headers: i % 3 === 0 ? [{ key: 'h1', value: Buffer.from(`hv${i}`) }, { key: 'empty', value: null }] : [],
          timestamp: base + BigInt(i * 13)
        })
      }
      const produced = await client.produceRaw({ topic, partition, records, acks: 'all', compression })
      assert.ok(produced.baseOffset >= 0n)
      assert.equal(produced.logAppendTime, -1n)
      const fetched = await client.fetchRaw({ topic, partition, offset: produced.baseOffset })
      const got = fetched.records.slice(0, records.length)
      assert.equal(got.length, records.length)
      for (let i = 0; i < records.length; i++) {
        assert.equal(got[i].offset, produced.baseOffset + BigInt(i))
        assert.deepEqual(got[i].key, records[i].key ?? null)
        assert.deepEqual(got[i].value, records[i].value)
        assert.deepEqual(got[i].headers, records[i].headers)
        assert.equal(got[i].timestamp, records[i].timestamp)
      }
      assert.equal(fetched.batches[0].compression, compression)
      assert.ok(fetched.highWatermark >= produced.baseOffset + 50n)
    })
  }

  test('listOffsets finds earliest, latest and by timestamp', async () => {
    const t = unique('offsets')
    await client.admin.createTopics([{ topic: t, numPartitions: 1 }])
    try {
      const produced = await client.produceRaw({ topic: t, partition: 0, records: [0, 1, 2].map(i => ({ value: Buffer.from(String(i)), timestamp: 1_000_000n + BigInt(i * 1000) })) })
      assert.equal((await client.listOffsets({ topic: t, partition: 0, spec: 'earliest' })).offset, 0n)
      assert.equal((await client.listOffsets({ topic: t, partition: 0, spec: 'latest' })).offset, produced.baseOffset + 3n)
      assert.equal((await client.listOffsets({ topic: t, partition: 0, spec: { timestamp: 1_001_500n } })).offset, 2n)
    } finally {
      await client.admin.deleteTopics([t])
    }
  })

  test('100 topics created, described and deleted', async () => {
    const names = Array.from({ length: 100 }, (_, i) => unique(`many-${i}`))
    await client.admin.createTopics(names.map((name, i) => ({ topic: name, numPartitions: 1 + (i % 3), configs: { 'retention.ms': String(3_600_000 + i) } })))
    const described = await client.admin.describeTopics(names)
    assert.equal(described.length, 100)
    described.forEach((t, i) => assert.equal(t.partitions.length, 1 + (i % 3)))
    const config = await client.admin.describeConfigs({ type: 'topic', name: names[42], keys: ['retention.ms'] })
    assert.equal(config.get('retention.ms')?.value, String(3_600_000 + 42))
    await client.admin.alterConfigs([{ type: 'topic', name: names[42], set: { 'retention.ms': '7200000' } }])
    // The broker applies config changes through its metadata log: the new value shows up shortly after.
    const value = await pollUntil(async () => (await client.admin.describeConfigs({ type: 'topic', name: names[42], keys: ['retention.ms'] })).get('retention.ms')?.value, v => v === '7200000')
    assert.equal(value, '7200000')
    const listed = new Set(await client.admin.listTopics())
    for (const name of names) assert.ok(listed.has(name), `${name} not listed`)
    await client.admin.deleteTopics(names)
    // Deletion completes through the controller's metadata log: brokers stop listing the topics shortly after.
    const after = await pollUntil(async () => new Set(await client.admin.listTopics()), listed => !names.some(name => listed.has(name)))
    for (const name of names) assert.ok(!after.has(name), `${name} still listed 30 s after delete`)
  })

  test('createPartitions raises the partition count', async () => {
    const t = unique('grow')
    await client.admin.createTopics([{ topic: t, numPartitions: 1 }])
    try {
      await client.admin.createPartitions([{ topic: t, count: 4 }])
      assert.equal((await client.admin.describeTopics([t]))[0].partitions.length, 4)
      await client.produceRaw({ topic: t, partition: 3, records: [{ value: Buffer.from('x') }] })
    } finally {
      await client.admin.deleteTopics([t])
    }
  })

  test('fetchRaw beyond the log end fails with OFFSET_OUT_OF_RANGE', async () => {
    await assert.rejects(client.fetchRaw({ topic, partition: 2, offset: 1_000_000n }), (error: { code?: number, type?: string }) => error.code === 1 && error.type === 'OFFSET_OUT_OF_RANGE')
  })

  test('an unknown topic fails after the bounded metadata wait, naming the topic', async () => {
    const shortClient = new Client({ bootstrap: bootstrap!, requestTimeoutMs: 1500 })
    try {
      const started = Date.now()
      await assert.rejects(shortClient.produceRaw({ topic: 'kafkats-no-such-topic', partition: 0, records: [{ value: null }] }), /kafkats-no-such-topic/)
      assert.ok(Date.now() - started < 5000)
    } finally {
      await shortClient.close()
    }
  })

  test('low-level request with a version function and raw Metadata for all topics', async () => {
    const response = await client.request(Metadata, version => ({ topics: version >= 1 ? null : [], allowAutoTopicCreation: false }))
    assert.ok(response.topics.some(t => t.name === topic))
    assert.ok(response.brokers.length >= 1)
  })
})

describe('a broker that is down or silent', () => {
  test('a request to a stopped broker fails with a clear error within its timeout', async () => {
    const server = net.createServer()
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as net.AddressInfo).port
    await new Promise<void>(resolve => server.close(() => resolve()))
    const client = new Client({ bootstrap: [`127.0.0.1:${port}`], requestTimeoutMs: 1500, retryBackoff: { initialMs: 50, maxMs: 300 } })
    const started = Date.now()
    try {
      await assert.rejects(client.request(Metadata, { topics: null }), (error: unknown) => {
        assert.ok(error instanceof ConnectionError, String(error))
        assert.match(error.message, /127\.0\.0\.1:\d+/)
        assert.match(error.message, /refused|could not connect/)
        return true
      })
      const elapsed = Date.now() - started
      assert.ok(elapsed >= 1000 && elapsed < 4000, `took ${elapsed} ms`)
    } finally {
      await client.close()
    }
  })

  test('a broker that accepts but never answers (paused) times out the request', async () => {
    const sockets: net.Socket[] = []
    const server = net.createServer(socket => { sockets.push(socket) })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as net.AddressInfo).port
    const client = new Client({ bootstrap: [`127.0.0.1:${port}`], requestTimeoutMs: 800, connectTimeoutMs: 800, retryBackoff: { initialMs: 50, maxMs: 200 } })
    const started = Date.now()
    try {
      await assert.rejects(client.request(Metadata, { topics: null }), (error: unknown) => error instanceof RequestTimeoutError || error instanceof ConnectionError)
      assert.ok(Date.now() - started < 4000)
    } finally {
      await client.close()
      for (const s of sockets) s.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  })
})

/** SIGSTOPs the node and waits until every thread of its JVM is stopped (state T), so nothing it started still answers. */
async function pauseFully (node: KafkaNode): Promise<void> {
  node.pause()
  const taskDir = `/proc/${node.pid}/task`
  for (let i = 0; i < 200; i++) {
    const states = fs.readdirSync(taskDir).map(task => {
      try {
        const stat = fs.readFileSync(`${taskDir}/${task}/stat`, 'utf8')
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
      } catch {
        return 'T' // the thread ended
      }
    })
    if (states.every(state => state === 'T' || state === 't')) return
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  throw new Error(`node ${node.nodeId} (pid ${node.pid}) did not stop all its threads within 10 s`)
}

describe('one broker of three hung (SIGSTOP): metadata and admin move on to the others', { skip: requireJavaOrSkip(), timeout: 300_000 }, () => {
  let cluster: KafkaCluster
  let client: Client
  const connectTimeoutMs = 2000
  const requestTimeoutMs = 6000

  before(async () => {
    cluster = await startCluster({ nodes: 3, portBase: 'free' })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'hung-broker', connectTimeoutMs, requestTimeoutMs, retryBackoff: { initialMs: 100, maxMs: 1000 } })
    await client.metadata.refresh()
    // A busy client: connections to every broker.
    for (const node of cluster.nodes) await client.request(Metadata, { topics: null }, { nodeId: node.nodeId })
    await pauseFully(cluster.node(1))
  })

  after(async () => {
    await client?.close()
    await cluster?.stop()
  })

  test('a fresh client whose first bootstrap address is the hung broker gets metadata within the connect timeout', async () => {
    const hungFirst = [cluster.node(1), cluster.node(2), cluster.node(3)].map(n => `${n.host}:${n.port}`)
    const fresh = new Client({ bootstrap: hungFirst, connectTimeoutMs, requestTimeoutMs })
    const started = Date.now()
    try {
      await fresh.metadata.refresh()
      const ms = Date.now() - started
      assert.ok(ms < connectTimeoutMs + 3000, `the first metadata took ${ms} ms (connect timeout ${connectTimeoutMs} ms, request timeout ${requestTimeoutMs} ms)`)
      assert.deepEqual(fresh.metadata.brokers.map(b => b.nodeId).sort(), [1, 2, 3])
    } finally {
      await fresh.close()
    }
  })

  test('metadata refreshes and admin calls of a connected client avoid the hung broker after its first failure', async () => {
    const started = Date.now()
    const took: number[] = []
    for (let i = 0; i < 6; i++) {
      const t0 = Date.now()
      await client.metadata.refresh()
      took.push(Date.now() - t0)
      const t1 = Date.now()
      await client.admin.listTopics()
      took.push(Date.now() - t1)
    }
    const total = Date.now() - started
    const slow = took.filter(ms => ms >= connectTimeoutMs).length
    assert.ok(slow <= 1 && total < requestTimeoutMs + 6000, `12 calls took ${total} ms: ${took.join(', ')} ms (request timeout ${requestTimeoutMs} ms)`)
  })
})

void Produce; void Fetch; void ListOffsets
