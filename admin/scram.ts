/**
 * SCRAM users on KRaft (KIP-554). The client computes the salted password
 * (Hi(password, salt, iterations) of RFC 5802, which is PBKDF2 with HMAC) and sends that
 * with the salt; the password itself never leaves the process.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import { AlterUserScramCredentials } from '../protocol/apis/alter-user-scram-credentials'
import { DescribeUserScramCredentials } from '../protocol/apis/describe-user-scram-credentials'
import type { BrokerError } from '../protocol/errors'
import { checkInteger, checkOneOf, checkString } from '../client/validate'
import { itemError, throwIf, type AdminCallOptions, type Router } from './route'

/** The SCRAM mechanisms Kafka stores credentials for. */
export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512'

const MECHANISMS: Record<ScramMechanism, { code: number, hash: 'sha256' | 'sha512', keyLength: number }> = {
  'SCRAM-SHA-256': { code: 1, hash: 'sha256', keyLength: 32 },
  'SCRAM-SHA-512': { code: 2, hash: 'sha512', keyLength: 64 }
}
const mechanismName = (code: number): ScramMechanism | 'unknown' => code === 1 ? 'SCRAM-SHA-256' : code === 2 ? 'SCRAM-SHA-512' : 'unknown'

/** Kafka accepts 4096 to 16384 iterations (its tools default to the minimum, 4096); kafkats asks for twice that. */
const DEFAULT_ITERATIONS = 8192

/** One user's SCRAM credentials, as `admin.describeUserScramCredentials()` answers them (never the passwords). */
export interface ScramUserDescription {
  /** The user's name. */
  user: string
  /** One per mechanism the user has a credential for. */
  credentials: Array<{
    /** The SCRAM mechanism; 'unknown' for one kafkats does not know. */
    mechanism: ScramMechanism | 'unknown'
    /** The credential's iteration count. */
    iterations: number
  }>
  /** The error when the user could not be described (e.g. RESOURCE_NOT_FOUND); absent when it was. */
  error?: BrokerError
}

/** The users' SCRAM mechanisms and iteration counts (all users when `users` is omitted). */
export async function describeUserScramCredentials (router: Router, users?: string[], options: AdminCallOptions = {}): Promise<ScramUserDescription[]> {
  const deadline = router.deadline('describeUserScramCredentials', options)
  const response = await router.any(DescribeUserScramCredentials, { users: users === undefined ? null : users.map(name => ({ name })) }, deadline, options.signal)
  throwIf(response.errorCode, 'Describing SCRAM credentials', response.errorMessage)
  return response.results.map(r => ({
    user: r.user,
    credentials: r.credentialInfos.map(c => ({ mechanism: mechanismName(c.mechanism), iterations: c.iterations })),
    error: itemError(r.errorCode, `Describing the SCRAM credentials of "${r.user}"`, r.errorMessage)
  }))
}

/** One change of `admin.alterUserScramCredentials()`: set a user's credential for a mechanism from a password (salted and hashed on the client), or delete it. */
export type ScramAlteration =
  | {
    /** The user's name. */
    user: string
    /** The SCRAM mechanism of the credential. */
    mechanism: ScramMechanism
    /** The password, salted and hashed on the client (never sent). */
    password: string
    /** The iteration count, from 4096 to 16384; default 8192. */
    iterations?: number
    /** The salt; default 32 random bytes. */
    salt?: Buffer
  }
  | {
    /** The user's name. */
    user: string
    /** The SCRAM mechanism of the credential. */
    mechanism: ScramMechanism
    /** Deletes the user's credential for `mechanism`. */
    delete: true
  }

/** Sets (with a password) or deletes users' SCRAM credentials; one result per user. */
export async function alterUserScramCredentials (router: Router, alterations: ScramAlteration[], options: AdminCallOptions = {}): Promise<Array<{ user: string, error?: BrokerError }>> {
  const deadline = router.deadline('alterUserScramCredentials', options)
  const deletions: Array<{ name: string, mechanism: number }> = []
  const upsertions: Array<{ name: string, mechanism: number, iterations: number, salt: Buffer, saltedPassword: Buffer }> = []
  for (const a of alterations) {
    checkString('alterUserScramCredentials', 'user', a.user)
    checkOneOf('alterUserScramCredentials', 'mechanism', a.mechanism, Object.keys(MECHANISMS))
    const mechanism = MECHANISMS[a.mechanism]
    if ('delete' in a) {
      deletions.push({ name: a.user, mechanism: mechanism.code })
      continue
    }
    checkString('alterUserScramCredentials', 'password', a.password)
    const iterations = a.iterations ?? DEFAULT_ITERATIONS
    checkInteger('alterUserScramCredentials', 'iterations', iterations, { min: 4096, max: 16384 })
    const salt = a.salt ?? randomBytes(32)
    upsertions.push({ name: a.user, mechanism: mechanism.code, iterations, salt, saltedPassword: pbkdf2Sync(a.password, salt, iterations, mechanism.keyLength, mechanism.hash) })
  }
  // The broker refuses a request that names a user twice (DUPLICATE_RESOURCE), so each
  // round carries a user at most once: two mechanisms of one user take two requests.
  const rounds: Array<{ deletions: typeof deletions, upsertions: typeof upsertions, users: Set<string> }> = []
  const place = (name: string): typeof rounds[number] => {
    let round = rounds.find(r => !r.users.has(name))
    if (round === undefined) rounds.push(round = { deletions: [], upsertions: [], users: new Set() })
    round.users.add(name)
    return round
  }
  for (const d of deletions) place(d.name).deletions.push(d)
  for (const u of upsertions) place(u.name).upsertions.push(u)
  const errors = new Map<string, BrokerError | undefined>()
  for (const round of rounds) {
    const response = await router.any(AlterUserScramCredentials, { deletions: round.deletions, upsertions: round.upsertions }, deadline, options.signal)
    for (const user of round.users) {
      const result = response.results.find(r => r.user === user)
      errors.set(user, errors.get(user) ?? itemError(result?.errorCode ?? -1, `Altering the SCRAM credentials of "${user}"`, result?.errorMessage))
    }
  }
  return [...new Set(alterations.map(a => a.user))].map(user => ({ user, error: errors.get(user) }))
}
