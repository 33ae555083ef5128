/**
 * Every API in `allApis`, at every version it speaks: a rich request and response, built
 * from the API's own schema, survive encode → decode unchanged, and decode → encode gives
 * back the same bytes. The codecs under test are the API's real ones, so hand-written hot
 * paths (the Produce request encoder, the Fetch response decoder) are covered too.
 *
 * The sample generator walks the schema's struct types for one version: every field that
 * version carries gets a value that is not its default (arrays of two elements, nested
 * structs filled, tagged fields set, nullable fields sometimes null); every field it lacks
 * gets its default, which is what a decoder returns for it. Values come from a seeded PRNG,
 * so a failure names the seed that reproduces it.
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { allApis, ApiVersions, Metadata, type MetadataResponse } from '../../../protocol/apis'
import type { AnyApi } from '../../../protocol/api'
import { Reader } from '../../../protocol/reader'
import { Writer } from '../../../protocol/writer'
import { decodeResponseFrame, encodeRequestFrame, encodeResponseFrame } from '../../../protocol/header'
import { SeededRandom as Random } from '../../support/random'
import { defaultOf, inRange, type FieldSpec, type FieldType, type StructType } from '../../../protocol/schema'

// Multi-byte characters make byte lengths differ from string lengths.
const ALPHABET = ['a', 'b', 'k', 'z', '0', '7', '-', '_', '.', 'é', '€', '漢', '𝄞']

function sampleString (rnd: Random): string {
  let text = ''
  const length = rnd.between(1, 8)
  for (let i = 0; i < length; i++) text += ALPHABET[rnd.between(0, ALPHABET.length - 1)]
  return text
}

function sampleUuid (rnd: Random): string {
  const hex = Array.from({ length: 4 }, () => rnd.u32().toString(16).padStart(8, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function sampleBytes (rnd: Random): Buffer {
  const bytes = Buffer.alloc(rnd.between(1, 24))
  for (let i = 0; i < bytes.length; i++) bytes[i] = rnd.between(0, 255)
  return bytes
}

function sampleType (type: FieldType, version: number, flexible: boolean, rnd: Random): unknown {
  if (typeof type === 'string') {
    switch (type) {
      case 'int8': return rnd.between(-128, 127)
      case 'int16': return rnd.between(-32768, 32767)
      case 'int32': return rnd.u32() | 0
      case 'int64': return BigInt.asIntN(64, (BigInt(rnd.u32()) << 32n) | BigInt(rnd.u32()))
      case 'uint16': return rnd.between(0, 0xffff)
      case 'uint32': return rnd.u32()
      case 'float64': return (rnd.u32() - 0x80000000) / 1024
      case 'bool': return rnd.chance(0.5)
      case 'uuid': return sampleUuid(rnd)
      case 'string': return sampleString(rnd)
      case 'bytes': case 'records': return sampleBytes(rnd)
    }
  }
  if (type.kind === 'struct') return sampleStruct(type, version, flexible, rnd)
  return [sampleType(type.of, version, flexible, rnd), sampleType(type.of, version, flexible, rnd)]
}

function sameValue (a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b)
  return a === b
}

function sampleField (spec: FieldSpec, version: number, flexible: boolean, rnd: Random): unknown {
  const dflt = defaultOf(spec)
  if (inRange(spec.nullableVersions, version) && dflt !== null && rnd.chance(0.25)) return null
  if (spec.type === 'bool') return dflt !== true
  for (;;) {
    const value = sampleType(spec.type, version, flexible, rnd)
    if (!sameValue(value, dflt)) return value
  }
}

function isPresent (spec: FieldSpec, version: number, flexible: boolean): boolean {
  if (spec.taggedVersions !== undefined) return flexible && inRange(spec.taggedVersions, version)
  return inRange(spec.versions, version)
}

/** A value of `type` at `version`: every field it carries set off its default, the rest at their default. */
function sampleStruct (type: StructType, version: number, flexible: boolean, rnd: Random): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  for (const spec of type.fields) {
    value[spec.name] = isPresent(spec, version, flexible) ? sampleField(spec, version, flexible, rnd) : defaultOf(spec)
  }
  return value
}

type Side = 'request' | 'response'

function encode (api: AnyApi, side: Side, version: number, value: unknown): Buffer {
  const w = new Writer(64)
  if (side === 'request') api.encodeRequest(w, version, value)
  else api.encodeResponse(w, version, value)
  return Buffer.from(w.finish())
}

function decode (api: AnyApi, side: Side, version: number, bytes: Buffer): unknown {
  const r = new Reader(bytes)
  const value = side === 'request' ? api.decodeRequest(r, version) : api.decodeResponse(r, version)
  assert.equal(r.remaining, 0, `${api.name} ${side} v${version}: ${r.remaining} bytes left after decoding`)
  return value
}

function roundTrip (api: AnyApi, side: Side, version: number, seed: number): void {
  const flexible = api.isFlexible(version)
  const value = sampleStruct(side === 'request' ? api.request : api.response, version, flexible, new Random(seed))
  const where = `${api.name} ${side} v${version} (seed ${seed})`
  const bytes = encode(api, side, version, value)
  const decoded = decode(api, side, version, bytes)
  assert.deepStrictEqual(decoded, value, `${where}: decode(encode(value)) differs from value`)
  assert.deepStrictEqual(encode(api, side, version, decoded), bytes, `${where}: encode(decode(bytes)) differs from bytes`)
}

function versionsOf (api: AnyApi): number[] {
  const versions: number[] = []
  for (let v = api.minVersion; v <= api.maxVersion; v++) versions.push(v)
  return versions
}

describe('every API round-trips at every version', () => {
  for (const api of allApis) {
    test(`${api.name} (key ${api.key}) v${api.minVersion}–v${api.maxVersion}`, () => {
      for (const version of versionsOf(api)) {
        for (let i = 0; i < 3; i++) {
          const seed = api.key * 10000 + version * 10 + i
          roundTrip(api, 'request', version, seed)
          roundTrip(api, 'response', version, seed)
        }
      }
    })
  }
})

test('the sample generator sets every field a version carries off its default', () => {
  // Guards the generator itself: a field left at its default would not be tested.
  const visit = (type: StructType, value: Record<string, unknown>, version: number, flexible: boolean, path: string): void => {
    for (const spec of type.fields) {
      const v = value[spec.name]
      if (!isPresent(spec, version, flexible)) continue
      if (v === null) continue
      assert.ok(!sameValue(v, defaultOf(spec)), `${path}.${spec.name} is at its default`)
      const t = spec.type
      if (typeof t === 'object' && t.kind === 'struct') visit(t, v as Record<string, unknown>, version, flexible, `${path}.${spec.name}`)
      if (typeof t === 'object' && t.kind === 'array') {
        assert.equal((v as unknown[]).length, 2, `${path}.${spec.name} should have two elements`)
        const of = t.of
        if (typeof of === 'object') for (const item of v as Array<Record<string, unknown>>) visit(of, item, version, flexible, `${path}.${spec.name}[]`)
      }
    }
  }
  for (const api of allApis) {
    for (const version of versionsOf(api)) {
      const flexible = api.isFlexible(version)
      visit(api.request, sampleStruct(api.request, version, flexible, new Random(version)), version, flexible, `${api.name}Request v${version}`)
      visit(api.response, sampleStruct(api.response, version, flexible, new Random(version)), version, flexible, `${api.name}Response v${version}`)
    }
  }
})

test('property: any seed, any API, any version round-trips', () => {
  fc.assert(fc.property(
    fc.nat({ max: allApis.length - 1 }),
    fc.nat({ max: 1000 }),
    fc.integer(),
    fc.boolean(),
    (apiIndex, versionPick, seed, isRequest) => {
      const api = allApis[apiIndex]
      const version = api.minVersion + (versionPick % (api.maxVersion - api.minVersion + 1))
      roundTrip(api, isRequest ? 'request' : 'response', version, seed)
    }
  ), { numRuns: 2000 })
})

describe('frames and headers', () => {
  const clientId = 'kafkats'

  test('ApiVersions v2 uses request header v1: no tagged fields after client_id', () => {
    const frame = encodeRequestFrame(ApiVersions, 2, 7, clientId, {})
    assert.deepStrictEqual(frame, Buffer.from([
      0x00, 0x00, 0x00, 0x11, // size: 17 bytes follow
      0x00, 0x12, // api_key 18
      0x00, 0x02, // api_version 2
      0x00, 0x00, 0x00, 0x07, // correlation_id 7
      0x00, 0x07, ...Buffer.from(clientId) // client_id: int16 length 7, "kafkats"
      // body of ApiVersions v2: empty
    ]))
  })

  test('ApiVersions v3 uses request header v2: client_id stays a non-compact string, then tagged fields', () => {
    const frame = encodeRequestFrame(ApiVersions, 3, 8, clientId, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0.1.0' })
    assert.deepStrictEqual(frame, Buffer.from([
      0x00, 0x00, 0x00, 0x21, // size: 33 bytes follow
      0x00, 0x12, // api_key 18
      0x00, 0x03, // api_version 3
      0x00, 0x00, 0x00, 0x08, // correlation_id 8
      0x00, 0x07, ...Buffer.from(clientId), // client_id: int16 length, not compact
      0x00, // header tagged fields: none
      0x08, ...Buffer.from('kafkats'), // client_software_name: compact string, length 7 + 1
      0x06, ...Buffer.from('0.1.0'), // client_software_version: length 5 + 1
      0x00 // body tagged fields: none
    ]))
  })

  test('ApiVersions responses use header v0 even when flexible', () => {
    const body = Buffer.from([
      0x00, 0x00, // error_code 0
      0x02, // api_keys: compact array of 1
      0x00, 0x12, 0x00, 0x00, 0x00, 0x04, 0x00, // api_key 18, min 0, max 4, no tags
      0x00, 0x00, 0x00, 0x00, // throttle_time_ms 0
      0x00 // tagged fields: none
    ])
    // correlation id 9, then the body straight away: no header tagged-field byte.
    const frame = Buffer.concat([Buffer.from([0x00, 0x00, 0x00, 0x09]), body])
    const decoded = decodeResponseFrame(ApiVersions, 3, frame)
    assert.equal(decoded.errorCode, 0)
    assert.deepStrictEqual(decoded.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 4 }])

    const encoded = encodeResponseFrame(ApiVersions, 3, 9, decoded)
    assert.deepStrictEqual(encoded.subarray(4), frame, 'encodeResponseFrame writes header v0 for ApiVersions')
  })

  test('other flexible responses use header v1: a tagged-field byte after the correlation id', () => {
    const body = sampleStruct(Metadata.response, 9, true, new Random(1)) as unknown as MetadataResponse
    const frame = encodeResponseFrame(Metadata, 9, 10, body).subarray(4)
    assert.deepStrictEqual(frame.subarray(0, 5), Buffer.from([0x00, 0x00, 0x00, 0x0a, 0x00])) // correlation id 10, no header tags
    assert.deepStrictEqual(frame.subarray(5), encode(Metadata, 'response', 9, body))
    assert.deepStrictEqual(decodeResponseFrame(Metadata, 9, frame), body)

    // Metadata v8 is not flexible: header v0, the body right after the correlation id.
    const bodyV8 = sampleStruct(Metadata.response, 8, false, new Random(2)) as unknown as MetadataResponse
    const frameV8 = encodeResponseFrame(Metadata, 8, 11, bodyV8).subarray(4)
    assert.deepStrictEqual(frameV8.subarray(0, 4), Buffer.from([0x00, 0x00, 0x00, 0x0b]))
    assert.deepStrictEqual(frameV8.subarray(4), encode(Metadata, 'response', 8, bodyV8))
    assert.deepStrictEqual(decodeResponseFrame(Metadata, 8, frameV8), bodyV8)
  })
})
