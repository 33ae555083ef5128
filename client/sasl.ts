/**
 * SASL authentication (KIP-43, KIP-152): SaslHandshake picks the mechanism, then
 * SaslAuthenticate carries each step's bytes. PLAIN, SCRAM-SHA-256/512 (RFC 5802) and
 * OAUTHBEARER (RFC 7628, KIP-255) are built in; any other mechanism can be given as an
 * `authenticate` function.
 *
 * The broker answers the last SaslAuthenticate with the session's lifetime when it has
 * connections.max.reauth.ms (KIP-368); `authenticate` returns it, and the connection
 * authenticates again on the same socket before it ends (connection.ts).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import { SaslAuthenticate } from '../protocol/apis/sasl-authenticate'
import { SaslHandshake } from '../protocol/apis/sasl-handshake'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { brokerText, sentence } from '../protocol/errors'
import { AuthenticationError } from './errors'
import { checkFunction, checkObject, checkOneOf, describeValue } from './validate'
import type { Api } from '../protocol/api'

/** What an OAUTHBEARER token provider returns: the token (a JWT), or the token with extensions (KIP-342). */
export type OAuthBearerToken = string | {
  /** The token (a JWT). */
  token: string
  /** SASL extensions sent with the token (KIP-342), name → value. */
  extensions?: Record<string, string>
}

/** The `sasl` option of a client: PLAIN, SCRAM-SHA-256/512 (also with a delegation token), OAUTHBEARER with a token or a token provider called at every (re-)authentication, or a custom mechanism's exchange. */
export type SaslOptions =
  | {
    /** SASL/PLAIN: the password is sent as is (use TLS). */
    mechanism: 'PLAIN'
    /** The user name. */
    username: string
    /** The password. */
    password: string
  }
  /** With a delegation token: `username` is the token id, `password` the HMAC in base64, and `tokenAuth: true`. */
  | {
    /** SASL/SCRAM with SHA-256 or SHA-512. */
    mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512'
    /** The user name, or a delegation token's id. */
    username: string
    /** The password, or a delegation token's HMAC in base64. */
    password: string
    /** Authenticates with a delegation token; default false. */
    tokenAuth?: boolean
  }
  /**
   * `token` is called for every authentication: each new connection and each
   * re-authentication, so a provider that fetches a fresh token before the old one
   * expires keeps long-lived connections working.
   */
  | {
    /** SASL/OAUTHBEARER. */
    mechanism: 'OAUTHBEARER'
    /** Returns the token to authenticate with; called for every authentication. */
    token: () => OAuthBearerToken | Promise<OAuthBearerToken>
  }
  | {
    /** A custom mechanism's name, as the broker knows it. */
    mechanism: string
    /** Runs the mechanism's exchange: `step` sends bytes to the broker and resolves with its answer. */
    authenticate: (step: (bytes: Buffer) => Promise<Buffer>) => Promise<void>
  }

/** Checks `sasl` client options where the user passes them (TypeError/RangeError naming the field). */
export function checkSaslOptions (where: string, options: unknown): void {
  checkObject(where, 'sasl', options)
  const sasl = options
  if (typeof sasl.mechanism !== 'string' || sasl.mechanism === '') throw new TypeError(`${where} sasl.mechanism: expected 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER' or the name of a custom mechanism, got ${describeValue(sasl.mechanism)}`)
  if (sasl.authenticate !== undefined) {
    checkFunction(where, 'sasl.authenticate', sasl.authenticate)
    return
  }
  checkOneOf(where, 'sasl.mechanism', sasl.mechanism, ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'])
  if (sasl.mechanism === 'OAUTHBEARER') {
    checkFunction(where, 'sasl.token', sasl.token)
    return
  }
  if (typeof sasl.username !== 'string') throw new TypeError(`${where} sasl.username: expected a string, got ${describeValue(sasl.username)}`)
  if (typeof sasl.password !== 'string') throw new TypeError(`${where} sasl.password: expected a string, got ${describeValue(sasl.password)}`)
}


/** What authentication needs of a connection (connection.ts's Connection, which calls authenticate()). */
export interface SaslConnection {
  readonly label: string
  send: <Request, Response>(api: Api<Request, Response>, body: Request, options?: { signal?: AbortSignal }) => Promise<Response>
}

/** Authenticates `connection`; returns the session lifetime the broker granted (0: no limit). */
export async function authenticate (connection: SaslConnection, options: SaslOptions, signal?: AbortSignal): Promise<number> {
  const handshake = await connection.send(SaslHandshake, { mechanism: options.mechanism }, { signal })
  if (handshake.errorCode !== 0) {
    throw new AuthenticationError(`${connection.label} refused SASL mechanism ${options.mechanism} (error code ${handshake.errorCode}); it offers ${handshake.mechanisms.join(', ') || 'none'}`, { code: handshake.errorCode === 0 ? ErrorCode.UNSUPPORTED_SASL_MECHANISM : handshake.errorCode })
  }
  let sessionLifetimeMs = 0
  const step = async (bytes: Buffer): Promise<Buffer> => {
    const response = await connection.send(SaslAuthenticate, { authBytes: bytes }, { signal })
    if (response.errorCode !== 0) {
      const hint = options.mechanism === 'OAUTHBEARER' ? 'Check the token (its signature, expiry and scope).' : 'Check the username and password.'
      const name = errorCodeInfo(response.errorCode).name
      throw new AuthenticationError(`${connection.label}: SASL ${options.mechanism} authentication failed (${name}): ${sentence(brokerText(response.errorMessage ?? 'no message'))} ${hint}`, { code: response.errorCode })
    }
    sessionLifetimeMs = Number(response.sessionLifetimeMs)
    return response.authBytes
  }
  if ('authenticate' in options) {
    await options.authenticate(step)
  } else if (options.mechanism === 'PLAIN') {
    await step(Buffer.from(`\u0000${options.username}\u0000${options.password}`, 'utf8'))
  } else if (options.mechanism === 'OAUTHBEARER') {
    await oauthBearer(connection.label, options.token, step)
  } else {
    await scram(options.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', options.username, options.password, step, options.tokenAuth === true)
  }
  return sessionLifetimeMs
}

/**
 * RFC 7628: the client's first message carries the token (and KIP-342 extensions). A
 * broker that refuses it answers with a JSON error instead of an empty message; the
 * client then sends a single 0x01 and the broker ends with SASL_AUTHENTICATION_FAILED.
 */
async function oauthBearer (label: string, provider: () => OAuthBearerToken | Promise<OAuthBearerToken>, step: (bytes: Buffer) => Promise<Buffer>): Promise<void> {
  let given: OAuthBearerToken
  try {
    given = await provider()
  } catch (error) {
    throw new AuthenticationError(`${label}: the OAUTHBEARER token provider failed: ${(error as Error).message}`, { cause: error, code: ErrorCode.SASL_AUTHENTICATION_FAILED })
  }
  const { token, extensions } = typeof given === 'string' ? { token: given, extensions: undefined } : given
  if (typeof token !== 'string' || token === '') throw new AuthenticationError(`${label}: the OAUTHBEARER token provider returned no token`, { code: ErrorCode.SASL_AUTHENTICATION_FAILED })
  const ext = Object.entries(extensions ?? {}).map(([key, value]) => `${key}=${value}\u0001`).join('')
  const reply = await step(Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001${ext}\u0001`, 'utf8'))
  if (reply.length === 0) return
  // The broker's error JSON ({"status":"invalid_token",...}); acknowledge it to get the final failure.
  const detail = reply.toString('utf8')
  try {
    await step(Buffer.from([1]))
  } catch (error) {
    if (error instanceof AuthenticationError) throw new AuthenticationError(`${error.message} (the broker said: ${detail})`, { code: error.code })
    throw error
  }
  throw new AuthenticationError(`${label}: SASL OAUTHBEARER authentication failed: ${detail}`, { code: ErrorCode.SASL_AUTHENTICATION_FAILED })
}

async function scram (hash: 'sha256' | 'sha512', username: string, password: string, step: (bytes: Buffer) => Promise<Buffer>, tokenAuth: boolean): Promise<void> {
  const clientNonce = randomBytes(24).toString('base64')
  const saslName = username.replace(/=/g, '=3D').replace(/,/g, '=2C')
  // Kafka's SCRAM extension for delegation tokens (KIP-48) follows the nonce.
  const clientFirstBare = `n=${saslName},r=${clientNonce}${tokenAuth ? ',tokenauth=true' : ''}`
  const serverFirst = (await step(Buffer.from(`n,,${clientFirstBare}`, 'utf8'))).toString('utf8')
  const attributes = parseScram(serverFirst)
  const nonce = attributes.get('r')
  const salt = attributes.get('s')
  const iterations = Number(attributes.get('i'))
  if (nonce === undefined || !nonce.startsWith(clientNonce) || salt === undefined || !Number.isInteger(iterations) || iterations < 1) {
    throw new AuthenticationError(`Malformed SCRAM server-first message: ${serverFirst}`)
  }
  const keyLength = hash === 'sha256' ? 32 : 64
  const saltedPassword = pbkdf2Sync(password, Buffer.from(salt, 'base64'), iterations, keyLength, hash)
  const clientKey = createHmac(hash, saltedPassword).update('Client Key').digest()
  const storedKey = createHash(hash).update(clientKey).digest()
  const clientFinalWithoutProof = `c=biws,r=${nonce}`
  const authMessage = `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`
  const clientSignature = createHmac(hash, storedKey).update(authMessage).digest()
  const proof = Buffer.alloc(keyLength)
  for (let i = 0; i < keyLength; i++) proof[i] = clientKey[i] ^ clientSignature[i]
  const serverFinal = (await step(Buffer.from(`${clientFinalWithoutProof},p=${proof.toString('base64')}`, 'utf8'))).toString('utf8')
  const final = parseScram(serverFinal)
  if (final.has('e')) throw new AuthenticationError(`SCRAM authentication failed: ${final.get('e')}`)
  const serverKey = createHmac(hash, saltedPassword).update('Server Key').digest()
  const expected = createHmac(hash, serverKey).update(authMessage).digest()
  const received = Buffer.from(final.get('v') ?? '', 'base64')
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
    throw new AuthenticationError('SCRAM server signature does not match: the broker could not prove it knows the password')
  }
}

function parseScram (message: string): Map<string, string> {
  const attributes = new Map<string, string>()
  for (const part of message.split(',')) {
    const eq = part.indexOf('=')
    if (eq > 0) attributes.set(part.slice(0, eq), part.slice(eq + 1))
  }
  return attributes
}
