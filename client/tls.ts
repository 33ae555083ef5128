/**
 * TLS settings that can never work, found before any connection: a private key that does
 * not decrypt, a certificate or CA that does not parse, a client certificate that expired.
 * Retrying them until a timeout only hides the cause, so the Client refuses them at once
 * (checkTlsOptions), and a refused handshake says when our own certificate is out of date
 * (clientCertificateProblem). Also how a TLS listener's answer looks to a plaintext client.
 */
import { X509Certificate } from 'node:crypto'
import * as tls from 'node:tls'
import { describeValue } from './validate'

type CertificateInput = string | Buffer | Array<string | Buffer | { pem: string | Buffer }>

/** Checks the `tls` client option where the user passes it (TypeError/RangeError naming the field). */
export function checkTlsOptions (where: string, options: unknown): void {
  if (options === undefined || typeof options === 'boolean') return
  const o = options as Record<string, unknown>
  if (o.ca !== undefined) for (const [i, pem] of certificates(o.ca as CertificateInput).entries()) parseCertificate(where, Array.isArray(o.ca) ? `tls.ca[${i}]` : 'tls.ca', pem)
  if (o.cert !== undefined) {
    const [first] = certificates(o.cert as CertificateInput)
    if (first !== undefined) {
      const problem = validityProblem(parseCertificate(where, 'tls.cert', first), Date.now())
      if (problem !== undefined) throw new RangeError(`${where} tls.cert: ${problem}; the broker will refuse it. Renew the certificate.`)
    }
  }
  try {
    // What tls.connect would do with them at every connection: decrypt the key, match it to the certificate.
    tls.createSecureContext(o as tls.SecureContextOptions)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'ERR_OSSL_BAD_DECRYPT' || /bad decrypt|bad password/i.test(message)) {
      const why = o.passphrase === undefined ? 'it is encrypted and no tls.passphrase was given' : 'tls.passphrase does not decrypt it (a wrong passphrase?)'
      throw new TypeError(`${where} tls.key: the private key cannot be used: ${why} (${message})`, { cause: error })
    }
    if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH') throw new TypeError(`${where} tls.key: the private key does not belong to the certificate in tls.cert (${message})`, { cause: error })
    throw new TypeError(`${where} tls: node:tls refuses these TLS options: ${message}${code !== undefined ? ` (${code})` : ''}`, { cause: error })
  }
}

/**
 * Why the client's own certificate (the first of `tls.cert`) is refused, when the dates
 * say so: an expired certificate and one from an untrusted CA get the same alert from the
 * broker (certificate unknown), but only the client can tell the first.
 */
export function clientCertificateProblem (options: { cert?: tls.ConnectionOptions['cert'] }, now = Date.now()): string | undefined {
  if (options.cert === undefined) return undefined
  try {
    const [first] = certificates(options.cert as CertificateInput)
    return first === undefined ? undefined : validityProblem(new X509Certificate(first), now)
  } catch {
    return undefined
  }
}

/**
 * Whether the first bytes a plaintext client got are a TLS record (a handshake or an
 * alert, version 3.x) rather than a Kafka frame: a TLS listener answering our ApiVersions.
 * As a frame size they would be 352 MB or more, which no first answer is.
 */
export function looksLikeTlsRecord (bytes: Uint8Array): boolean {
  return bytes.length >= 3 && (bytes[0] === 0x15 || bytes[0] === 0x16) && bytes[1] === 0x03 && bytes[2] <= 0x04
}

function validityProblem (certificate: X509Certificate, now: number): string | undefined {
  const subject = certificate.subject.replace(/\n/g, ', ')
  if (Date.parse(certificate.validTo) < now) return `the client certificate (${subject}) expired on ${new Date(certificate.validTo).toISOString()}`
  if (Date.parse(certificate.validFrom) > now) return `the client certificate (${subject}) is not valid before ${new Date(certificate.validFrom).toISOString()} (check the clock)`
  return undefined
}

/** The certificates of a ca/cert option: each PEM block of each entry, or an entry as DER. */
function certificates (value: CertificateInput): Array<string | Buffer> {
  const entries = Array.isArray(value) ? value : [value]
  return entries.flatMap(entry => {
    const item = typeof entry === 'object' && !Buffer.isBuffer(entry) && 'pem' in entry ? entry.pem : entry
    const text = typeof item === 'string' ? item : Buffer.isBuffer(item) ? item.toString('latin1') : undefined
    if (text === undefined) return [item as never]
    const blocks = text.match(/-----BEGIN (?:TRUSTED )?CERTIFICATE-----[\s\S]*?-----END (?:TRUSTED )?CERTIFICATE-----/g)
    return blocks ?? [item as string | Buffer]
  })
}

function parseCertificate (where: string, name: string, value: string | Buffer): X509Certificate {
  try {
    return new X509Certificate(value)
  } catch (error) {
    const path = typeof value === 'string' && !value.includes('\n') && /^[\w./\\:~-]+$/.test(value)
      ? ' It looks like a file path: pass the file\'s contents (fs.readFileSync(path)), not its name.'
      : ''
    throw new TypeError(`${where} ${name}: expected a PEM (or DER) certificate, got ${describeValue(value)} that does not parse (${(error as Error).message}).${path}`, { cause: error })
  }
}
