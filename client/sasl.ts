/**
 * SASL authentication (KIP-43, KIP-152): SaslHandshake picks the mechanism, then
 * SaslAuthenticate carries each step's bytes. PLAIN and SCRAM-SHA-256/512 (RFC 5802)
 * are built in; any other mechanism can be given as an `authenticate` function.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import { SaslAuthenticate } from '../protocol/apis/sasl-authenticate'
import { SaslHandshake } from '../protocol/apis/sasl-handshake'
import { AuthenticationError } from './errors'
import type { Connection } from './connection'

export type SaslOptions =
  | { mechanism: 'PLAIN', username: string, password: string }
  | { mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', username: string, password: string }
  | { mechanism: string, authenticate: (step: (bytes: Buffer) => Promise<Buffer>) => Promise<void> }

export async function authenticate (connection: Connection, options: SaslOptions, signal?: AbortSignal): Promise<void> {
  const handshake = await connection.send(SaslHandshake, { mechanism: options.mechanism }, { signal })
  if (handshake.errorCode !== 0) {
    throw new AuthenticationError(`${connection.label} refused SASL mechanism ${options.mechanism} (error code ${handshake.errorCode}); it offers ${handshake.mechanisms.join(', ') || 'none'}`)
  }
  const step = async (bytes: Buffer): Promise<Buffer> => {
    const response = await connection.send(SaslAuthenticate, { authBytes: bytes }, { signal })
    if (response.errorCode !== 0) {
      throw new AuthenticationError(`${connection.label}: SASL ${options.mechanism} authentication failed (error code ${response.errorCode}): ${response.errorMessage ?? 'no message'}. Check the username and password.`)
    }
    return response.authBytes
  }
  if ('authenticate' in options) return await options.authenticate(step)
  if (options.mechanism === 'PLAIN') {
    await step(Buffer.from(`\u0000${options.username}\u0000${options.password}`, 'utf8'))
    return
  }
  await scram(options.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', options.username, options.password, step)
}

async function scram (hash: 'sha256' | 'sha512', username: string, password: string, step: (bytes: Buffer) => Promise<Buffer>): Promise<void> {
  const clientNonce = randomBytes(24).toString('base64')
  const saslName = username.replace(/=/g, '=3D').replace(/,/g, '=2C')
  const clientFirstBare = `n=${saslName},r=${clientNonce}`
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
