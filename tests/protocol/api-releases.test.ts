/**
 * protocol/api-releases.ts, the table behind "use Kafka X or later": complete for every API
 * kafkats speaks, ordered, and true to the ApiKeys of every Kafka release whose jars the
 * harness has on this machine (4.4.0 and 3.9.1 always, the old-broker matrix's releases
 * when it fetched them).
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { allApis } from '../../protocol/apis/index'
import { API_RELEASES, brokersWith, compareReleases, firstReleaseWith, highestVersionIn, KRAFT_ONLY_APIS } from '../../protocol/api-releases'
import { cacheRoot, ensureKafkaJars, KAFKA_VERSION, kafkaClasspath, repoRoot } from '../broker/kafka'

/** A jar's version as the table names releases: '0.11.0.3' → '0.11', '0.10.2.2' → '0.10.2', '3.9.1' → '3.9'. */
function releaseOf (jarVersion: string): string {
  const parts = jarVersion.split('.')
  if (parts[0] !== '0') return parts.slice(0, 2).join('.')
  return parts[1] === '11' ? '0.11' : parts.slice(0, 3).join('.')
}

describe('the release table', () => {
  // Up to kafkats's lowest version at least (what the messages name); versions no release marks stable yet have none.
  test('has a row for every API kafkats speaks', () => {
    for (const api of allApis) {
      const row = API_RELEASES[api.key]
      assert.ok(row !== undefined, `${api.name} (key ${api.key}) has no row in protocol/api-releases.ts`)
      assert.ok(row.length > api.minVersion, `${api.name}: the row names releases up to v${row.length - 1}, kafkats's lowest is v${api.minVersion}`)
    }
  })

  test('a later version never came with an earlier release', () => {
    for (const [key, row] of Object.entries(API_RELEASES)) {
      for (let v = 1; v < row.length; v++) assert.ok(compareReleases(row[v - 1], row[v]) <= 0, `key ${key}: v${v} (${row[v]}) before v${v - 1} (${row[v - 1]})`)
    }
  })

  test('brokersWith names the release and the mode', () => {
    assert.equal(firstReleaseWith(60, 0), '2.8')
    assert.equal(brokersWith(60, 0), 'Kafka 2.8 or later')
    assert.equal(brokersWith(80, 0), 'Kafka 3.9 or later in KRaft mode')
    assert.equal(brokersWith(32, 0), 'Kafka 0.11 or later')
    assert.equal(brokersWith(60, 99), undefined)
    assert.equal(highestVersionIn(32, '1.0'), 0)
    assert.equal(highestVersionIn(60, '2.7'), -1)
    assert.ok(compareReleases('2.8', '2.10') < 0 && compareReleases('0.10.2', '0.11') < 0)
  })
})

function javaMissing (): string | undefined {
  for (const tool of ['java', 'javac']) {
    if (spawnSync(tool, ['-version'], { stdio: 'ignore' }).error !== undefined) return `\`${tool}\` is not available (a JDK 17+ reads the Kafka jars' ApiKeys)`
  }
  return undefined
}

function run (command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${command} ${args.slice(0, 3).join(' ')} … failed: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/** The harness's jar folders (kafka-<version>) that hold a kafka-clients jar, by release. */
function jarFolders (): Map<string, string> {
  const folders = new Map<string, string>()
  const root = cacheRoot()
  if (!fs.existsSync(root)) return folders
  for (const entry of fs.readdirSync(root)) {
    const match = /^kafka-(\d+(?:\.\d+)+)$/.exec(entry)
    if (match === null) continue
    const dir = path.join(root, entry)
    if (fs.readdirSync(dir).some(f => f === `kafka-clients-${match[1]}.jar`)) folders.set(match[1], dir)
  }
  return folders
}

describe('the release table agrees with the Kafka jars on this machine', { skip: javaMissing() }, () => {
  test('each release\'s ApiKeys speak exactly the versions the table gives it', async () => {
    await ensureKafkaJars()
    const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-apikeys-'))
    try {
      await run('javac', ['-nowarn', '-d', classes, '-cp', kafkaClasspath(), path.join(repoRoot(), 'tests', 'tools', 'ApiKeysDump.java')])
      const folders = jarFolders()
      assert.ok(folders.has(KAFKA_VERSION), `no Kafka ${KAFKA_VERSION} jars in ${cacheRoot()}`)
      const problems: string[] = []
      for (const [jarVersion, dir] of folders) {
        const release = releaseOf(jarVersion)
        const latest = new Map<number, number>()
        for (const line of (await run('java', ['-cp', [classes, path.join(dir, '*')].join(path.delimiter), 'ApiKeysDump'])).trim().split('\n')) {
          const [key, , , highest] = line.split(' ')
          latest.set(Number(key), Number(highest))
        }
        for (const key of Object.keys(API_RELEASES)) {
          const expected = highestVersionIn(Number(key), release)
          const actual = latest.get(Number(key)) ?? -1
          // A client jar also lists what only controllers served then (DescribeQuorum in 3.0): a KRaft-only API may show up there before brokers speak it.
          if (actual === expected || (KRAFT_ONLY_APIS.has(Number(key)) && actual > expected && compareReleases(release, '3.3') < 0)) continue
          problems.push(`Kafka ${jarVersion}: key ${key} up to v${actual}, the table says v${expected}`)
        }
      }
      assert.deepEqual(problems, [], `checked against ${[...folders.keys()].join(', ')}`)
    } finally {
      fs.rmSync(classes, { recursive: true, force: true })
    }
  })
})
