// The KRaft membership calls and the APIs added for old brokers and Streams, against the real
// Kafka 4.4 broker (one combined node, a static quorum): each refusal as Kafka gives it.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { BrokerError, Client } from '../../index'
import { AlterConfigs } from '../../protocol/apis/alter-configs'
import { StreamsGroupTopologyDescriptionUpdate } from '../../protocol/apis/streams-group-topology-description-update'
import { ErrorCode } from '../../protocol/error-codes'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { pollUntil } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const isBrokerError = (code: number, text: RegExp) => (error: unknown): boolean => error instanceof BrokerError && error.code === code && text.test(error.message)

describe('KRaft membership and the newer APIs against a real broker', { skip }, () => {
  let client: Client
  const topics: string[] = []
  before(() => { client = new Client({ bootstrap: bootstrap!, clientId: 'kafkats-admin-kraft-test' }) })
  after(async () => {
    if (topics.length > 0) await client.admin.deleteTopics(topics, { ignoreMissing: true }).catch(() => {})
    await client.close()
  })

  test('unregisterBroker and unregisterController of ids the cluster does not have: the typed refusal', async () => {
    await assert.rejects(client.admin.unregisterBroker(999), isBrokerError(ErrorCode.BROKER_ID_NOT_REGISTERED, /Broker ID 999 is not currently registered/))
    await assert.rejects(client.admin.unregisterController(999), isBrokerError(ErrorCode.CONTROLLER_ID_NOT_REGISTERED, /Controller ID 999 is not currently registered/))
  })

  test('addRaftVoter and removeRaftVoter on a static quorum: the quorum\'s answer; a wrong clusterId is INCONSISTENT_CLUSTER_ID', async () => {
    const quorum = await client.admin.describeQuorum()
    const voter = quorum.voters[0]
    const listener = quorum.nodes[0].listeners[0]
    await assert.rejects(client.admin.addRaftVoter(999, '0123456789abcdef0123456789abcdef', [{ name: listener.name, host: listener.host, port: listener.port }], { timeoutMs: 10_000 }),
      isBrokerError(ErrorCode.UNSUPPORTED_VERSION, /kraft\.version feature is 0/))
    // A static quorum's voters have no directory id (all zeros): Kafka refuses that as no valid voter.
    assert.equal(voter.replicaDirectoryId, '00000000-0000-0000-0000-000000000000')
    await assert.rejects(client.admin.removeRaftVoter(voter.replicaId, voter.replicaDirectoryId), isBrokerError(ErrorCode.INVALID_REQUEST, /didn't include a valid voter/))
    await assert.rejects(client.admin.removeRaftVoter(voter.replicaId, '0123456789abcdef0123456789abcdef'), isBrokerError(ErrorCode.UNSUPPORTED_VERSION, /kraft\.version feature is 0/))
    await assert.rejects(client.admin.removeRaftVoter(voter.replicaId, voter.replicaDirectoryId, { clusterId: 'not-this-cluster' }), isBrokerError(ErrorCode.INCONSISTENT_CLUSTER_ID, /not-this-cluster/))
  })

  test('AlterConfigs replaces a topic\'s whole set of configs', async () => {
    const topic = uniqueName('alter-configs')
    topics.push(topic)
    await client.admin.createTopics([{ topic, numPartitions: 1, configs: { 'retention.ms': '100000', 'cleanup.policy': 'compact' } }])
    const response = await client.request(AlterConfigs, { resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: 'retention.ms', value: '200000' }] }], validateOnly: false })
    assert.deepEqual(response.responses.map(r => r.errorCode), [ErrorCode.NONE])
    // The broker applies config changes through its metadata log: the new set shows up shortly after.
    const [described] = await pollUntil(async () => await client.admin.describeConfigs([{ type: 'topic', name: topic }]), ([d]) => d.configs.get('retention.ms')?.value === '200000')
    assert.equal(described.configs.get('retention.ms')?.value, '200000')
    assert.equal(described.configs.get('cleanup.policy')?.sourceName, 'default')
  })

  test('StreamsGroupTopologyDescriptionUpdate is understood: the broker answers it (without a topology plugin, UNSUPPORTED_VERSION), it does not close the connection', async () => {
    const response = await client.request(StreamsGroupTopologyDescriptionUpdate, {
      groupId: uniqueName('no-such-streams-group'),
      memberId: 'member',
      topologyEpoch: 0,
      topologyDescription: { subtopologies: [{ subtopologyId: '0', nodes: [{ name: 'KSTREAM-SOURCE-0', nodeType: 1, sourceTopics: ['in'], sinkTopic: null, stores: [], successors: [] }] }], globalStores: [] }
    })
    assert.equal(response.errorCode, ErrorCode.UNSUPPORTED_VERSION)
    assert.match(response.errorMessage ?? '', /topology description plugin/)
  })
})
