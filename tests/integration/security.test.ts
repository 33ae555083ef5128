// Security against a real, secured Kafka 4.4 broker started for this file: SASL (PLAIN,
// SCRAM-SHA-256/512, OAUTHBEARER with the broker's unsecured JWS validator) without and
// with TLS, TLS with a CA made at test time, mTLS, StandardAuthorizer ACLs, SCRAM users
// made through the admin, delegation tokens, and KIP-368 re-authentication with sessions
// of a few seconds (every SASL connection here re-authenticates several times).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { AuthenticationError, BrokerError, Client, GroupConsumer, KafkaTsError, TlsError, type ClientOptions, type SaslOptions } from '../../index'
import { startCluster, type KafkaCluster, type SecuredListeners } from '../broker/kafka'
import { requireJavaOrSkip, uniqueName } from './support'
import { waitFor } from '../support/wait'
import { internal } from '../../client/internal'

const skip = requireJavaOrSkip()
const REAUTH_MS = 3000
const USERS = { admin: 'admin-secret', alice: 'alice-secret' }

/** An unsecured JWS (alg "none"), which the broker's default OAUTHBEARER validator accepts for tests. */
function unsecuredJwt (subject: string, lifetimeMs: number): string {
  const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  const now = Date.now() / 1000
  return `${b64({ alg: 'none' })}.${b64({ sub: subject, iat: now - 5, exp: now + lifetimeMs / 1000 })}.`
}

const cliBin = path.join(__dirname, '..', '..', 'cli', 'main.js')

/** Runs the `kafkats` command as users do; its exit code and output. */
async function kafkats (args: string[], env: Record<string, string> = {}, cwd?: string): Promise<{ code: number | null, stdout: string, stderr: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => { stdout += chunk })
    child.stderr.on('data', chunk => { stderr += chunk })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`kafkats ${args.join(' ')} did not end within 90 s; stderr: ${stderr}`)) }, 90_000)
    child.on('error', reject)
    child.on('close', code => { clearTimeout(timer); resolve({ code, stdout, stderr }) })
  })
}


describe('security against a secured broker', { skip }, () => {
  let cluster: KafkaCluster
  let secured: SecuredListeners
  let admin: Client
  const clients: Client[] = []

  const connect = (listener: 'saslPlaintext' | 'saslSsl' | 'ssl' | 'mtls', options: Partial<ClientOptions> = {}): Client => {
    const tls = listener === 'saslSsl' || listener === 'ssl' || listener === 'mtls' ? { ca: secured.ca, ...(typeof options.tls === 'object' ? options.tls : {}) } : undefined
    const client = new Client({ bootstrap: [secured[listener]], clientId: uniqueName('sec'), requestTimeoutMs: 20_000, ...options, tls })
    clients.push(client)
    return client
  }

  before(async () => {
    cluster = await startCluster({
      portBase: 'free',
      security: { users: USERS, superUsers: ['User:admin', 'User:CN=kafkats-client'], authorizer: true, reauthMs: REAUTH_MS, delegationTokens: true }
    })
    secured = cluster.secured!
    admin = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-512', username: 'admin', password: USERS.admin } })
  })

  after(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await cluster?.stop()
  })

  async function produceConsumeAdmin (client: Client, label: string): Promise<void> {
    const topic = uniqueName(`sec-${label}`)
    await client.admin.createTopics([{ topic, numPartitions: 2 }])
    const producer = client.producer({ lingerMs: 1 })
    const sent = await Promise.all(Array.from({ length: 40 }, async (_, i) => await producer.send({ topic, value: `${label}-${i}` })))
    await producer.close()
    assert.equal(sent.length, 40)
    const consumer = new GroupConsumer(client, { groupId: uniqueName(`g-${label}`), topics: [topic], fromBeginning: true })
    const values = new Set<string>()
    const run = consumer.run({ eachBatch: batch => { for (const r of batch.records) values.add(r.value!.toString()) } })
    try {
      await waitFor(`${label}: the group to consume 40 records`, async () => values.size === 40 ? true : undefined, { intervalMs: 200 })
    } finally {
      await consumer.close()
      await run.catch(() => {})
    }
    const described = await client.admin.describeCluster()
    assert.equal(described.brokers.length, 1)
    await client.admin.deleteTopics([topic])
  }

  const mechanisms: Array<[string, () => SaslOptions]> = [
    ['PLAIN', () => ({ mechanism: 'PLAIN', username: 'admin', password: USERS.admin })],
    ['SCRAM-SHA-256', () => ({ mechanism: 'SCRAM-SHA-256', username: 'admin', password: USERS.admin })],
    ['SCRAM-SHA-512', () => ({ mechanism: 'SCRAM-SHA-512', username: 'admin', password: USERS.admin })],
    ['OAUTHBEARER', () => ({ mechanism: 'OAUTHBEARER', token: () => unsecuredJwt('admin', 60_000) })]
  ]
  for (const [name, sasl] of mechanisms) {
    test(`SASL_SSL with ${name}: produce, consume in a group, admin`, async () => {
      await produceConsumeAdmin(connect('saslSsl', { sasl: sasl() }), name.toLowerCase())
    })
  }

  test('SASL_PLAINTEXT with SCRAM-SHA-256 and SSL with the test CA (no client certificate) work too', async () => {
    await produceConsumeAdmin(connect('saslPlaintext', { sasl: { mechanism: 'SCRAM-SHA-256', username: 'admin', password: USERS.admin } }), 'saslplain')
    // Without a certificate on the SSL listener the principal is ANONYMOUS (a super user here).
    assert.equal((await connect('ssl').admin.describeCluster()).brokers.length, 1)
  })

  test('mTLS: a client certificate signed by the CA is accepted; without one, an untrusted CA or a wrong name, TLS fails at once with TlsError', async () => {
    const withCert = connect('mtls', { tls: { cert: secured.clientCert, key: secured.clientKey } })
    assert.equal((await withCert.admin.describeCluster()).brokers.length, 1)
    // A servername per broker: the certificate is for localhost and 127.0.0.1.
    const named = connect('ssl', { tls: { servername: (host: string) => host === '127.0.0.1' ? 'localhost' : undefined } })
    assert.equal((await named.admin.describeCluster()).brokers.length, 1)
    const refusals: Array<[string, Client]> = [
      ['no client certificate', connect('mtls')],
      ['a CA the client does not trust', new Client({ bootstrap: [secured.ssl], tls: true })],
      ['a name the certificate is not for', connect('ssl', { tls: { servername: 'not-the-broker.example' } })]
    ]
    for (const [why, client] of refusals) {
      clients.push(client)
      const started = Date.now()
      // A long timeout: retrying the handshake would take all of it.
      await assert.rejects(client.admin.describeCluster({ timeoutMs: 60_000 }), (error: unknown) => error instanceof TlsError && /TLS handshake failed/.test(error.message), why)
      assert.ok(Date.now() - started < 20_000, `${why}: refused after ${Date.now() - started} ms, as if retried`)
    }
  })

  test('a wrong password and an expired token fail fast with SASL_AUTHENTICATION_FAILED, without retrying until the timeout', async () => {
    const cases: Array<[string, SaslOptions]> = [
      ['PLAIN', { mechanism: 'PLAIN', username: 'admin', password: 'wrong' }],
      ['SCRAM-SHA-512', { mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'wrong' }],
      ['OAUTHBEARER', { mechanism: 'OAUTHBEARER', token: () => unsecuredJwt('admin', -60_000) }]
    ]
    for (const [name, sasl] of cases) {
      // A long request timeout: retrying authentication would take all of it.
      const client = connect('saslSsl', { sasl, requestTimeoutMs: 60_000 })
      const started = Date.now()
      await assert.rejects(client.admin.describeCluster(), (error: unknown) => {
        assert.ok(error instanceof AuthenticationError, `${name}: ${String(error)}`)
        assert.equal(error.code, 58)
        assert.equal(error.type, 'SASL_AUTHENTICATION_FAILED')
        return true
      })
      // A producer on such a client fails its record instead of waiting for the delivery timeout.
      const producer = client.producer({ deliveryTimeoutMs: 60_000 })
      await assert.rejects(producer.send({ topic: 'any', value: 'x' }), (error: unknown) => error instanceof AuthenticationError && error.code === 58)
      await producer.close({ force: true }).catch(() => {})
      const elapsed = Date.now() - started
      assert.ok(elapsed < 20_000, `${name}: failing took ${elapsed} ms, as if it was retried until the timeout`)
    }
  })

  test(`a session outliving connections.max.reauth.ms (${REAUTH_MS} ms) re-authenticates in band: the same connections keep producing and consuming, nothing lost`, async () => {
    let tokens = 0
    const client = connect('saslSsl', { sasl: { mechanism: 'OAUTHBEARER', token: () => { tokens++; return unsecuredJwt('admin', 60_000) } } })
    const topic = uniqueName('reauth')
    await client.admin.createTopics([{ topic, numPartitions: 1 }])
    const producer = client.producer({ lingerMs: 2 })
    await producer.send({ topic, value: 'first' })
    const nodeId = client.metadata.partition(topic, 0)!.leaderId
    const produceConnection = await client[internal].connection(nodeId, 'produce')
    const consumer = new GroupConsumer(client, { groupId: uniqueName('g-reauth'), topics: [topic], fromBeginning: true })
    const received: string[] = []
    const run = consumer.run({ eachBatch: batch => { for (const r of batch.records) received.push(r.value!.toString()) } })
    const tokensBefore = tokens
    const sent: string[] = ['first']
    const until = Date.now() + REAUTH_MS * 3 + 1000
    try {
      for (let i = 0; Date.now() < until; i++) {
        await producer.send({ topic, value: `v${i}` })
        sent.push(`v${i}`)
        await new Promise(resolve => setTimeout(resolve, 20))
      }
      await waitFor('every record consumed', async () => received.length >= sent.length ? true : undefined, { intervalMs: 200 })
    } finally {
      await consumer.close()
      await run.catch(() => {})
      await producer.close()
    }
    assert.deepEqual(received, sent, 'every record, in order, exactly once')
    assert.equal(await client[internal].connection(nodeId, 'produce'), produceConnection, 'the produce connection was kept (re-authenticated, not re-made)')
    assert.ok(!produceConnection.isClosed)
    assert.ok(tokens - tokensBefore >= 2, `the token provider was asked again for each re-authentication (asked ${tokens - tokensBefore} times)`)
  })

  test('ACLs: created and described; without WRITE a produce fails at once with TOPIC_AUTHORIZATION_FAILED, without READ on the group GROUP_AUTHORIZATION_FAILED, and other topics on the same client are unaffected', async () => {
    const allowed = uniqueName('acl-ok')
    const denied = uniqueName('acl-denied')
    const groupId = uniqueName('g-acl')
    await admin.admin.createTopics([{ topic: allowed, numPartitions: 1 }, { topic: denied, numPartitions: 1 }])
    const bindings = [
      { resourceType: 'topic' as const, resourceName: allowed, principal: 'User:alice', operation: 'write' as const, permission: 'allow' as const },
      { resourceType: 'topic' as const, resourceName: allowed, principal: 'User:alice', operation: 'read' as const, permission: 'allow' as const },
      { resourceType: 'topic' as const, resourceName: allowed, principal: 'User:alice', operation: 'describe' as const, permission: 'allow' as const }
    ]
    const created = await admin.admin.createAcls(bindings)
    assert.deepEqual(created.map(c => c.error), [undefined, undefined, undefined])
    const described = await waitFor('the ACLs to be visible', async () => {
      const found = await admin.admin.describeAcls({ resourceType: 'topic', resourceName: allowed })
      return found.length === 3 ? found : undefined
    }, { intervalMs: 200 })
    assert.deepEqual(described.map(b => b.operation).sort(), ['describe', 'read', 'write'])
    assert.ok(described.every(b => b.principal === 'User:alice' && b.permission === 'allow' && b.patternType === 'literal' && b.host === '*'))

    const alice = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: USERS.alice } })
    const producer = alice.producer({ deliveryTimeoutMs: 60_000 })
    await producer.send({ topic: allowed, value: 'before' })
    const started = Date.now()
    await assert.rejects(producer.send({ topic: denied, value: 'x' }), (error: unknown) => error instanceof BrokerError && error.type === 'TOPIC_AUTHORIZATION_FAILED')
    assert.ok(Date.now() - started < 15_000, 'refused at once, not after the delivery timeout')
    await producer.send({ topic: allowed, value: 'after' })
    await producer.close()

    const member = new GroupConsumer(alice, { groupId, topics: [allowed], fromBeginning: true })
    await assert.rejects(member.run({ eachBatch: () => {} }), (error: unknown) => error instanceof BrokerError && error.type === 'GROUP_AUTHORIZATION_FAILED')
    await member.close().catch(() => {})
    // The same client still reads the allowed topic directly.
    const fetched = await alice.fetchRaw({ topic: allowed, partition: 0, offset: 0n })
    assert.deepEqual(fetched.records.map(r => r.value!.toString()), ['before', 'after'])
    // And with READ on the group, the member consumes.
    await admin.admin.createAcls([{ resourceType: 'group', resourceName: 'g-acl-', patternType: 'prefixed', principal: 'User:alice', operation: 'read', permission: 'allow' }])
    await waitFor('the group ACL to be visible', async () => (await admin.admin.describeAcls({ resourceType: 'group', resourceName: groupId, patternType: 'match' })).length > 0 ? true : undefined, { intervalMs: 200 })
    const allowedMember = new GroupConsumer(alice, { groupId, topics: [allowed], fromBeginning: true })
    let count = 0
    const run = allowedMember.run({ eachBatch: batch => { count += batch.records.length } })
    try {
      await waitFor('the allowed member to consume', async () => count === 2 ? true : undefined, { intervalMs: 200 })
    } finally {
      await allowedMember.close()
      await run.catch(() => {})
    }

    const deleted = await admin.admin.deleteAcls([{ principal: 'User:alice' }])
    assert.equal(deleted[0].deleted.length, 4)
    await waitFor('the ACLs to be gone', async () => (await admin.admin.describeAcls({ principal: 'User:alice' })).length === 0 ? true : undefined, { intervalMs: 200 })
  })

  test('SCRAM users made through the admin can log in with their password, and only with it', async () => {
    const user = uniqueName('carol')
    const results = await admin.admin.alterUserScramCredentials([{ user, mechanism: 'SCRAM-SHA-512', password: 'carol-secret' }])
    assert.equal(results[0].error, undefined)
    await admin.admin.createAcls([{ resourceType: 'cluster', resourceName: 'kafka-cluster', principal: `User:${user}`, operation: 'describe', permission: 'allow' }])
    const carol = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-512', username: user, password: 'carol-secret' } })
    const described = await waitFor('carol to log in', async () => await carol.admin.describeCluster({ includeAuthorizedOperations: true }).catch(() => undefined), { intervalMs: 200 })
    assert.deepEqual(described.authorizedOperations, ['describe'])
    const wrong = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-512', username: user, password: 'not-hers' } })
    await assert.rejects(wrong.admin.describeCluster(), AuthenticationError)
    // SCRAM-SHA-256 was never set for her.
    const otherMechanism = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-256', username: user, password: 'carol-secret' } })
    await assert.rejects(otherMechanism.admin.describeCluster(), AuthenticationError)
  })

  test('delegation tokens: create, log in with SCRAM and the token, describe, renew, expire', async () => {
    const token = await admin.admin.createDelegationToken({ renewers: ['User:admin'], maxLifetimeMs: 3_600_000 })
    assert.equal(token.owner, 'User:admin')
    assert.ok(token.hmac.length > 0)
    const viaToken = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-256', username: token.tokenId, password: token.hmac.toString('base64'), tokenAuth: true } })
    const described = await waitFor('the token to work', async () => await viaToken.admin.describeCluster().catch(() => undefined), { intervalMs: 200 })
    assert.equal(described.brokers.length, 1)
    // A token-authenticated connection may not manage tokens.
    await assert.rejects(viaToken.admin.createDelegationToken(), (error: unknown) => error instanceof BrokerError && error.type === 'DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
    const listed = await admin.admin.describeDelegationTokens({ owners: ['User:admin'] })
    assert.ok(listed.some(t => t.tokenId === token.tokenId && t.renewers.includes('User:admin')))
    const renewed = await admin.admin.renewDelegationToken(token.hmac, { renewPeriodMs: 600_000 })
    assert.ok(renewed > Date.now())
    await admin.admin.expireDelegationToken(token.hmac)
    await waitFor('the token to be gone', async () => (await admin.admin.describeDelegationTokens()).some(t => t.tokenId === token.tokenId) ? undefined : true, { intervalMs: 200 })
    const afterExpiry = connect('saslSsl', { sasl: { mechanism: 'SCRAM-SHA-256', username: token.tokenId, password: token.hmac.toString('base64'), tokenAuth: true } })
    await assert.rejects(afterExpiry.admin.describeCluster(), AuthenticationError)
  })

  /** A SCRAM user made through the admin, allowed `operations` on `topic`. */
  async function scramUser (prefix: string, topic: string, operations: Array<'write' | 'read' | 'describe'>): Promise<{ user: string, password: string }> {
    const user = uniqueName(prefix)
    const password = `${user}-secret`
    const [result] = await admin.admin.alterUserScramCredentials([{ user, mechanism: 'SCRAM-SHA-256', password }])
    assert.equal(result.error, undefined)
    if (operations.length > 0) await admin.admin.createAcls(operations.map(operation => ({ resourceType: 'topic' as const, resourceName: topic, principal: `User:${user}`, operation, permission: 'allow' as const })))
    return { user, password }
  }

  for (const how of ['a SCRAM credential is deleted', 'an OAUTHBEARER provider starts returning expired tokens'] as const) test(`a producer whose credential is revoked mid-session (${how}) fails its pending sends with AuthenticationError at the next re-authentication, not after minutes`, async () => {
    const topic = uniqueName('revoked')
    await admin.admin.createTopics([{ topic, numPartitions: 1 }])
    const { user, password } = await scramUser('dave', topic, ['write', 'describe'])
    let tokenLifetimeMs = 60_000
    const sasl: SaslOptions = how.startsWith('a SCRAM') ? { mechanism: 'SCRAM-SHA-256', username: user, password } : { mechanism: 'OAUTHBEARER', token: () => unsecuredJwt(user, tokenLifetimeMs) }
    const client = connect('saslPlaintext', { sasl })
    let authenticationErrors = 0
    client.on('authenticationError', () => { authenticationErrors++ })
    const producer = client.producer({ lingerMs: 1, deliveryTimeoutMs: 120_000 })
    await waitFor('dave to produce', async () => await producer.send({ topic, value: 'first' }).catch(() => undefined), { intervalMs: 200 })
    if (sasl.mechanism === 'OAUTHBEARER') tokenLifetimeMs = -60_000
    else await admin.admin.alterUserScramCredentials([{ user, mechanism: 'SCRAM-SHA-256', delete: true }])
    const revokedAt = Date.now()
    // Keeps sending every 200 ms, as an application does, until a send fails.
    let failure: unknown
    const sends: Array<Promise<unknown>> = []
    while (failure === undefined && Date.now() - revokedAt < 90_000) {
      sends.push(producer.send({ topic, value: 'more' }).catch(error => { failure ??= error }))
      await new Promise(resolve => setTimeout(resolve, 200))
    }
    const failedAfterMs = Date.now() - revokedAt
    assert.ok(failure instanceof AuthenticationError, `a send failed with ${String(failure)}`)
    assert.equal(failure.code, 58)
    // The session ends within REAUTH_MS; the refusal must then fail the sends, not a retry loop.
    assert.ok(failedAfterMs < REAUTH_MS + 15_000, `the first send failed ${failedAfterMs} ms after the revocation`)
    // Every pending send ends: each either made it before the session ended or fails with the refusal.
    const settled = await Promise.race([Promise.all(sends).then(() => true), new Promise(resolve => setTimeout(() => resolve(false), 30_000))])
    assert.equal(settled, true, 'every send settled')
    assert.ok(authenticationErrors <= 5, `${authenticationErrors} authenticationError events: the refusal was retried`)
    await producer.close({ force: true }).catch(() => {})
    console.log(`# ${how}: the first send failed ${failedAfterMs} ms after the revocation, ${authenticationErrors} authenticationError event(s)`)
  })

  test('a topic the principal may not describe is TOPIC_AUTHORIZATION_FAILED at once, in describeTopics, listOffsets and the CLI\'s consume, not UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const topic = uniqueName('hidden')
    const readable = uniqueName('describe-only')
    await admin.admin.createTopics([{ topic, numPartitions: 1 }, { topic: readable, numPartitions: 1 }])
    const { user, password } = await scramUser('frank', readable, ['describe'])
    // A record to read: with none, `consume -e` is done before it fetches.
    const producer = admin.producer()
    await producer.send({ topic: readable, value: 'x' })
    await producer.close()
    const client = connect('saslPlaintext', { sasl: { mechanism: 'SCRAM-SHA-256', username: user, password } })
    const isDenied = (error: unknown): boolean => error instanceof BrokerError && error.type === 'TOPIC_AUTHORIZATION_FAILED' && error.code === 29
    let started = Date.now()
    const [described] = await client.admin.describeTopics([topic], { timeoutMs: 60_000 })
    assert.ok(isDenied(described.error), `describeTopics answered ${String(described.error)}`)
    assert.ok(Date.now() - started < 10_000, `describeTopics took ${Date.now() - started} ms`)
    started = Date.now()
    const [listed] = await client.admin.listOffsets([{ topic, partition: 0, spec: 'latest' }], { timeoutMs: 60_000 })
    assert.ok(isDenied(listed.error), `listOffsets answered ${String(listed.error)}`)
    assert.ok(Date.now() - started < 10_000, `listOffsets took ${Date.now() - started} ms, as if it retried`)
    const cli = ['consume', '-b', secured.saslPlaintext, '--sasl-mechanism', 'SCRAM-SHA-256', '--sasl-username', user, '--sasl-password', password, '-o', 'beginning', '-e', '-q', '--timeout-ms', '60000']
    for (const [name, what] of [[topic, 'without DESCRIBE'], [readable, 'with DESCRIBE but without READ']]) {
      started = Date.now()
      const run = await kafkats([...cli, '-t', name])
      assert.equal(run.code, 1, `${what}: ${run.stderr}`)
      assert.match(run.stderr, /TOPIC_AUTHORIZATION_FAILED/, what)
      assert.doesNotMatch(run.stderr, /UNKNOWN_TOPIC/, what)
      assert.ok(Date.now() - started < 30_000, `${what}: the CLI took ${Date.now() - started} ms`)
    }
  })

  test('an idempotent producer without WRITE on the topic or IDEMPOTENT_WRITE fails with CLUSTER_AUTHORIZATION_FAILED naming the missing ACL, without the broker\'s request dump', async () => {
    const topic = uniqueName('no-write')
    await admin.admin.createTopics([{ topic, numPartitions: 1 }])
    const { user, password } = await scramUser('grace', topic, ['describe'])
    const client = connect('saslPlaintext', { sasl: { mechanism: 'SCRAM-SHA-256', username: user, password } })
    const producer = client.producer({ deliveryTimeoutMs: 60_000 })
    const started = Date.now()
    await assert.rejects(producer.send({ topic, value: 'x' }), (error: unknown) => {
      assert.ok(error instanceof KafkaTsError, String(error))
      const { code, type } = error as KafkaTsError & { code?: number, type?: string }
      assert.equal(code, 31, error.message)
      assert.equal(type, 'CLUSTER_AUTHORIZATION_FAILED')
      assert.match(error.message, /IDEMPOTENT_WRITE/)
      assert.match(error.message, /WRITE on the topic/)
      assert.doesNotMatch(error.message, /Request\(processor|Session@|later sends try again|\.\./)
      return true
    })
    assert.ok(Date.now() - started < 15_000, `refused after ${Date.now() - started} ms`)
    await producer.close({ force: true }).catch(() => {})
  })

  test('a TLS client on a plaintext listener and a plaintext client on a TLS listener fail fast, saying the security protocols differ', async () => {
    const cases: Array<[string, Client]> = [
      ['TLS on a SASL_PLAINTEXT listener', new Client({ bootstrap: [secured.saslPlaintext], tls: { ca: secured.ca }, sasl: { mechanism: 'PLAIN', username: 'admin', password: USERS.admin } })],
      ['plaintext on an SSL listener', new Client({ bootstrap: [secured.ssl] })],
      ['plaintext SASL on a SASL_SSL listener', new Client({ bootstrap: [secured.saslSsl], sasl: { mechanism: 'PLAIN', username: 'admin', password: USERS.admin } })]
    ]
    for (const [what, client] of cases) {
      clients.push(client)
      for (const call of ['admin', 'send'] as const) {
        const started = Date.now()
        const attempt = call === 'admin'
          ? client.admin.describeCluster({ timeoutMs: 60_000 })
          : client.producer({ deliveryTimeoutMs: 60_000 }).send({ topic: 'any', value: 'x' })
        const error = await attempt.then(() => undefined, (e: unknown) => e)
        const elapsed = Date.now() - started
        assert.ok(error instanceof TlsError, `${what} (${call}): ${String(error)}`)
        assert.match(error.message, /TLS/)
        assert.ok(elapsed < 10_000, `${what} (${call}): failed after ${elapsed} ms`)
        console.log(`# ${what} (${call}): ${error.name} after ${elapsed} ms`)
      }
    }
  })

  test('the CLI authenticates with OAUTHBEARER (a token command) and reads a -F config file whose certificate path is relative to the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-cli-'))
    try {
      fs.writeFileSync(path.join(dir, 'ca.pem'), secured.ca)
      fs.writeFileSync(path.join(dir, 'cli.json'), JSON.stringify({ bootstrap: secured.saslSsl, tls: { ca: 'ca.pem' }, sasl: { mechanism: 'OAUTHBEARER', tokenCommand: `echo ${unsecuredJwt('admin', 60_000)}` } }))
      // Run from elsewhere: the path in the file is relative to the file.
      const run = await kafkats(['cluster', '--json', '-F', path.join(dir, 'cli.json')], {}, os.tmpdir())
      assert.equal(run.code, 0, run.stderr)
      assert.equal(JSON.parse(run.stdout).brokers.length, 1)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
