// The CLI's connection options (cli/common.ts) as a user writes them: a -F config file whose
// relative paths are relative to the file, OAUTHBEARER with a token from a file (read again
// at each authentication), a command or the environment, and a passphrase for an encrypted key.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { clientOptions, UsageError } from '../../cli/common'

let dir: string
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-cli-'))
  fs.mkdirSync(path.join(dir, 'certs'))
  fs.writeFileSync(path.join(dir, 'certs', 'ca.pem'), 'the CA')
  fs.writeFileSync(path.join(dir, 'certs', 'client.key'), 'the key')
  fs.writeFileSync(path.join(dir, 'token'), 'first-token\n')
})
after(() => fs.rmSync(dir, { recursive: true, force: true }))

const writeConfig = (config: object): string => {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`)
  fs.writeFileSync(file, JSON.stringify(config))
  return file
}

test('paths in a -F config file are relative to the file, not to the working directory', () => {
  const file = writeConfig({ bootstrap: 'b:9093', tls: { ca: 'certs/ca.pem', key: './certs/client.key', passphrase: 'secret' }, sasl: { mechanism: 'OAUTHBEARER', tokenFile: 'token' } })
  const cwd = process.cwd()
  process.chdir(os.tmpdir())
  try {
    const options = clientOptions({ 'config-file': file })
    const tls = options.tls as { ca: Buffer, key: Buffer, passphrase: string }
    assert.equal(tls.ca.toString(), 'the CA')
    assert.equal(tls.key.toString(), 'the key')
    assert.equal(tls.passphrase, 'secret')
    assert.equal((options.sasl as { token: () => string }).token(), 'first-token')
  } finally {
    process.chdir(cwd)
  }
})

test('OAUTHBEARER: the token file is read again at each authentication; a command is run for each; or the environment gives it', () => {
  const fromFile = clientOptions({ bootstrap: 'b:9092', 'sasl-mechanism': 'oauthbearer', 'sasl-token-file': path.join(dir, 'token') })
  const token = (fromFile.sasl as { token: () => string }).token
  assert.equal(token(), 'first-token')
  fs.writeFileSync(path.join(dir, 'token'), 'refreshed-token')
  assert.equal(token(), 'refreshed-token')
  const fromCommand = clientOptions({ bootstrap: 'b:9092', 'sasl-mechanism': 'OAUTHBEARER', 'sasl-token-command': 'echo command-token' })
  assert.equal((fromCommand.sasl as { token: () => string }).token(), 'command-token')
  process.env.KAFKATS_SASL_TOKEN = 'env-token'
  try {
    const fromEnv = clientOptions({ bootstrap: 'b:9092', 'sasl-mechanism': 'OAUTHBEARER' })
    assert.equal((fromEnv.sasl as { token: () => string }).token(), 'env-token')
  } finally {
    delete process.env.KAFKATS_SASL_TOKEN
  }
  assert.throws(() => clientOptions({ bootstrap: 'b:9092', 'sasl-mechanism': 'OAUTHBEARER' }), (error: unknown) => error instanceof UsageError && /exactly one of --sasl-token-file, --sasl-token-command or KAFKATS_SASL_TOKEN/.test(error.message))
  assert.throws(() => clientOptions({ bootstrap: 'b:9092', 'sasl-mechanism': 'OAUTHBEARER', 'sasl-token-file': path.join(dir, 'missing') }), (error: unknown) => error instanceof UsageError && /cannot read/.test(error.message))
})

test('--tls-key-passphrase (or KAFKATS_TLS_KEY_PASSPHRASE) is the passphrase of an encrypted key', () => {
  const options = clientOptions({ bootstrap: 'b:9093', 'tls-key': path.join(dir, 'certs', 'client.key'), 'tls-key-passphrase': 'secret' })
  assert.equal((options.tls as { passphrase: string }).passphrase, 'secret')
  process.env.KAFKATS_TLS_KEY_PASSPHRASE = 'from-env'
  try {
    assert.equal((clientOptions({ bootstrap: 'b:9093', 'tls-key': path.join(dir, 'certs', 'client.key') }).tls as { passphrase: string }).passphrase, 'from-env')
  } finally {
    delete process.env.KAFKATS_TLS_KEY_PASSPHRASE
  }
})
