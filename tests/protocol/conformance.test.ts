/**
 * Every API in `allApis` against the Kafka 4.4.0 broker's own schemas; the versions Kafka
 * 4.0 removed (KIP-896) that kafkats still speaks to older brokers (DescribeConfigs v0)
 * against the last release that had them, 3.9.1.
 *
 * tests/tools/SchemaDump.java, compiled against the broker jars, prints each version of
 * `<Name>RequestData` / `<Name>ResponseData` the way Kafka's Schema.toString lays it out;
 * describeStruct renders ours the same way, so any difference in field order, type,
 * nullability, compactness or tags shows up as a differing line.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { allApis } from '../../protocol/apis/index'
import { describeStruct, type StructType } from '../../protocol/schema'
import { ensureKafkaJars, KAFKA_VERSION, kafkaClasspathOf, repoRoot, type KafkaVersion } from '../broker/kafka'

/** The last release before KIP-896 removed old versions (Kafka 4.0): where kafkats's versions below 4.4's lowest are checked. */
const PRE_KIP_896: KafkaVersion = '3.9.1'

interface JavaMessage {
  lowest: number
  highest: number
  /** The highest version a broker advertises (the newest stable one). */
  stable: number
  schemas: Map<number, string>
}

/** Why the test cannot run here, or undefined when java and javac are available. */
function javaMissing (): string | undefined {
  for (const tool of ['java', 'javac']) {
    const result = spawnSync(tool, ['-version'], { stdio: 'ignore' })
    if (result.error !== undefined) return `\`${tool}\` is not available (install a JDK 17+ to compare kafkats's schemas with Kafka ${KAFKA_VERSION}'s)`
  }
  return undefined
}

function exec (command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${command} ${args.slice(0, 4).join(' ')} … failed: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/** Compiles SchemaDump and runs it for the given message names. */
async function dumpJavaSchemas (names: string[], version: KafkaVersion = KAFKA_VERSION): Promise<Map<string, JavaMessage | 'missing'>> {
  await ensureKafkaJars(version)
  const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-schemadump-'))
  try {
    await exec('javac', ['-nowarn', '-d', classes, '-cp', kafkaClasspathOf(version), path.join(repoRoot(), 'tests', 'tools', 'SchemaDump.java')])
    const output = await exec('java', ['-cp', kafkaClasspathOf(version, classes), 'SchemaDump', ...names])
    return parseDump(output)
  } finally {
    fs.rmSync(classes, { recursive: true, force: true })
  }
}

function parseDump (output: string): Map<string, JavaMessage | 'missing'> {
  const messages = new Map<string, JavaMessage | 'missing'>()
  let current: JavaMessage | undefined
  for (const line of output.split('\n')) {
    const header = /^== (\w+) (?:versions (\d+)-(\d+)(?: stable (\d+))?|(missing))$/.exec(line)
    if (header !== null) {
      if (header[5] === 'missing') {
        messages.set(header[1], 'missing')
        current = undefined
      } else {
        current = { lowest: Number(header[2]), highest: Number(header[3]), stable: Number(header[4] ?? header[3]), schemas: new Map() }
        messages.set(header[1], current)
      }
      continue
    }
    const schema = /^v(\d+): (.*)$/.exec(line)
    if (schema !== null && current !== undefined) current.schemas.set(Number(schema[1]), schema[2])
  }
  return messages
}

const skip = javaMissing()

describe(`conformance with the Kafka ${KAFKA_VERSION} schemas`, { skip }, () => {
  let dump: Map<string, JavaMessage | 'missing'> | undefined
  /** PRE_KIP_896's schemas of the APIs kafkats speaks below KAFKA_VERSION's lowest version. */
  let olderDump: Map<string, JavaMessage | 'missing'> | undefined
  let dumpError: unknown

  // One JVM run for every API (and one more for the removed versions); each test below reads its part.
  const loaded = skip !== undefined
    ? Promise.resolve()
    : (async () => {
        dump = await dumpJavaSchemas(allApis.map(api => api.name))
        const below = allApis.filter(api => {
          const request = dump!.get(`${api.name}Request`)
          return request !== undefined && request !== 'missing' && api.minVersion < request.lowest
        })
        if (below.length > 0) olderDump = await dumpJavaSchemas(below.map(api => api.name), PRE_KIP_896)
      })().catch(error => { dumpError = error })

  async function javaMessage (name: string, older = false): Promise<JavaMessage> {
    await loaded
    if (dumpError !== undefined) throw dumpError
    const release = older ? PRE_KIP_896 : KAFKA_VERSION
    const message = (older ? olderDump : dump)?.get(name)
    if (message === undefined || message === 'missing') {
      assert.fail(`Kafka ${release} has no ${name}Data class: is the API's name spelled as Kafka's message JSON spells it?`)
    }
    return message
  }

  for (const api of allApis) {
    describe(`${api.name} (key ${api.key}, v${api.minVersion}–v${api.maxVersion})`, () => {
      test('versions are within what Kafka defines, up to the newest the broker speaks', async () => {
        const request = await javaMessage(`${api.name}Request`)
        const response = await javaMessage(`${api.name}Response`)
        assert.equal(request.lowest, response.lowest, 'Kafka request and response lowest versions differ')
        assert.ok(api.minVersion <= api.maxVersion, `minVersion ${api.minVersion} is above maxVersion ${api.maxVersion}`)
        if (api.minVersion < request.lowest) {
          // A version Kafka 4.0 removed: it must be one the last release before had.
          const older = await javaMessage(`${api.name}Request`, true)
          assert.ok(api.minVersion >= older.lowest, `minVersion ${api.minVersion} is below Kafka ${PRE_KIP_896}'s lowest, v${older.lowest}`)
        }
        assert.ok(api.maxVersion <= request.highest, `maxVersion ${api.maxVersion} is above Kafka's highest, v${request.highest}`)
        assert.ok(api.maxVersion >= request.stable, `the ${KAFKA_VERSION} broker speaks up to v${request.stable}, kafkats only up to v${api.maxVersion}`)
      })

      for (const side of ['Request', 'Response'] as const) {
        test(`${side.toLowerCase()} schema of every version matches`, async () => {
          const java = await javaMessage(`${api.name}${side}`)
          const older = api.minVersion < java.lowest ? await javaMessage(`${api.name}${side}`, true) : undefined
          const struct: StructType = side === 'Request' ? api.request : api.response
          const mismatches: string[] = []
          for (let version = api.minVersion; version <= api.maxVersion; version++) {
            const expected = version < java.lowest ? older?.schemas.get(version) : java.schemas.get(version)
            if (expected === undefined) {
              mismatches.push(`v${version}: Kafka has no such version`)
              continue
            }
            const actual = describeStruct(struct, version, api.isFlexible(version))
            if (actual !== expected) mismatches.push(`v${version}:\n  kafka:   ${expected}\n  kafkats: ${actual}`)
          }
          assert.equal(mismatches.length, 0, `${api.name}${side} differs from Kafka ${KAFKA_VERSION} (below its lowest version: ${PRE_KIP_896}):\n${mismatches.join('\n')}`)
        })
      }
    })
  }
})
