import { test, describe, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import * as zlib from 'node:zlib'
import {
  compress, decompress, codecFromId, setCodecPackageLoaderForTests, lz4OutputBound, zstdOutputBound,
  CompressionCodecUnavailableError, COMPRESSION_CODECS, COMPRESSION_CODEC_IDS, type CompressionCodec
} from '../../protocol/compression'
import { encodeRecordBatch, decodeRecordBatches } from '../../protocol/record-batch'
import { KafkaTsError, ProtocolError } from '../../protocol/errors'

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internals and native codecs have no types: required as untyped modules */
const snappy = require('snappy')

const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const XERIAL_MAGIC = '82534e4150505900'

/** Text that compresses but not to nothing, so blocks of every codec get real content. */
function sample (size: number): Buffer {
  const out = Buffer.alloc(size)
  let seed = 12345
  for (let i = 0; i < size; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    out[i] = 97 + ((seed >> 16) % 8)
  }
  return out
}

function isProtocolErrorNaming (codec: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${String(error)}`)
    assert.match(error.message, new RegExp(codec))
    return true
  }
}

describe('compression codecs', () => {
  test('ids are the batch attribute values', () => {
    assert.deepEqual(COMPRESSION_CODECS, CODECS)
    assert.deepEqual(CODECS.map(c => COMPRESSION_CODEC_IDS[c]), [0, 1, 2, 3, 4])
    assert.equal(codecFromId(3), 'lz4')
    assert.throws(() => codecFromId(5), ProtocolError)
    assert.throws(() => codecFromId(7), ProtocolError)
  })

  for (const codec of CODECS) {
    test(`${codec} round trips empty, tiny and multi-block data`, async () => {
      for (const size of [0, 1, 100, 32 * 1024, 32 * 1024 + 1, 200 * 1024]) {
        const data = sample(size)
        const packed = await compress(codec, data)
        if (codec !== 'none' && size >= 32 * 1024) assert.ok(packed.length < size, `${codec} compresses`)
        assert.ok((await decompress(codec, packed)).equals(data), `${codec} ${size} bytes`)
      }
    })

    if (codec !== 'none') {
      test(`${codec}: garbage is a ProtocolError naming the codec`, async () => {
        const packed = await compress(codec, sample(5000))
        const garbage = Buffer.from(packed)
        for (let i = Math.min(20, garbage.length - 1); i < garbage.length; i += 7) garbage[i] ^= 0x5a
        await assert.rejects(decompress(codec, garbage), isProtocolErrorNaming(codec))
        await assert.rejects(decompress(codec, packed.subarray(0, packed.length - 3)), isProtocolErrorNaming(codec))
        await assert.rejects(decompress(codec, Buffer.from('definitely not compressed at all')), isProtocolErrorNaming(codec))
      })
    }
  }
})

describe('snappy framing', () => {
  test('writes xerial framing with 32 KiB blocks, like the Java client', async () => {
    const data = sample(100 * 1024)
    const packed = await compress('snappy', data)
    assert.equal(packed.subarray(0, 8).toString('hex'), XERIAL_MAGIC)
    assert.equal(packed.readInt32BE(8), 1) // version
    assert.equal(packed.readInt32BE(12), 1) // minimum compatible version
    const blockSizes: number[] = []
    for (let pos = 16; pos < packed.length;) {
      const length = packed.readInt32BE(pos)
      const plain = snappy.uncompressSync(packed.subarray(pos + 4, pos + 4 + length)) as Buffer
      blockSizes.push(plain.length)
      pos += 4 + length
    }
    assert.deepEqual(blockSizes, [32768, 32768, 32768, 4096])
  })

  test('reads raw (unframed) snappy too', async () => {
    const data = sample(70000)
    assert.ok((await decompress('snappy', snappy.compressSync(data))).equals(data))
  })

  test('reads a xerial stream assembled by hand, including an empty one', async () => {
    const parts = [sample(10), sample(1000)]
    const blocks = parts.map(p => snappy.compressSync(p) as Buffer)
    const header = Buffer.from(XERIAL_MAGIC + '0000000100000001', 'hex')
    const framed = Buffer.concat([header, ...blocks.flatMap(b => [Buffer.from(int32(b.length)), b])])
    assert.ok((await decompress('snappy', framed)).equals(Buffer.concat(parts)))
    assert.equal((await decompress('snappy', header)).length, 0)
  })

  test('bad xerial block lengths are ProtocolErrors', async () => {
    const header = Buffer.from(XERIAL_MAGIC + '0000000100000001', 'hex')
    const block = snappy.compressSync(sample(100)) as Buffer
    const cases = [
      Buffer.concat([header, Buffer.from(int32(block.length + 1)), block]), // longer than what is left
      Buffer.concat([header, Buffer.from(int32(-1)), block]), // negative
      Buffer.concat([header, Buffer.from([0, 0])]), // truncated length
      header.subarray(0, 12) // truncated header
    ]
    for (const framed of cases) await assert.rejects(decompress('snappy', framed), isProtocolErrorNaming('snappy'))
  })
})

function int32 (n: number): number[] {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return [...b]
}

describe('decompression bomb guards', () => {
  const limit = 1024 * 1024
  const big = Buffer.alloc(20 * 1024 * 1024) // 20 MiB of zeros: compresses to almost nothing

  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    test(`${codec}: data decompressing past maxBytes is refused`, async () => {
      const packed = await compress(codec, big)
      assert.ok(packed.length < 2 * 1024 * 1024)
      await assert.rejects(decompress(codec, packed, { maxBytes: limit }), (error: unknown) => {
        assert.ok(error instanceof ProtocolError)
        assert.match(error.message, new RegExp(`${codec} data in a record batch decompresses to .*more than the limit of ${limit}`))
        return true
      })
      const small = sample(limit - 10)
      assert.ok((await decompress(codec, await compress(codec, small), { maxBytes: limit })).equals(small))
    })
  }

  test('a zstd frame without a content size is bounded by walking its blocks', async () => {
    // Hand-made frame: no content size, window 2 MiB, 100 RLE blocks of 128 KiB each:
    // 412 bytes that decompress to 12.5 MiB.
    const blocks: number[] = []
    for (let i = 0; i < 100; i++) {
      const header = ((128 * 1024) << 3) | (1 << 1) | (i === 99 ? 1 : 0)
      blocks.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, 0x61)
    }
    const frame = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, ...blocks])
    assert.equal(zstdOutputBound(frame, Infinity), 100 * 128 * 1024)
    await assert.rejects(decompress('zstd', frame, { maxBytes: limit }), isProtocolErrorNaming('zstd'))
    const plain = await decompress('zstd', frame)
    assert.equal(plain.length, 100 * 128 * 1024)
    assert.equal(plain[plain.length - 1], 0x61)
  })

  test('the walked bound of real lz4 and zstd output is close to the real size', async () => {
    const data = sample(1024 * 1024)
    const lz4Frame = await compress('lz4', data)
    // The frame descriptor's BD byte gives the block maximum: 64 KiB to 4 MiB.
    const lz4BlockMax = 1 << (8 + 2 * ((lz4Frame[5] >> 4) & 7))
    const lz4Bound = lz4OutputBound(lz4Frame, Infinity)
    assert.ok(lz4Bound >= data.length && lz4Bound <= data.length + lz4BlockMax, `lz4 bound ${lz4Bound}`)
    const zstdBound = zstdOutputBound(await compress('zstd', data), Infinity)
    assert.ok(zstdBound >= data.length && zstdBound <= data.length + 128 * 1024, `zstd bound ${zstdBound}`)
  })

  test('gzip from another producer (zlib) is read', async () => {
    const data = sample(5000)
    assert.ok((await decompress('gzip', zlib.gzipSync(data))).equals(data))
  })
})

describe('missing codec packages', () => {
  afterEach(() => setCodecPackageLoaderForTests(undefined))

  const packages = { snappy: 'snappy', lz4: 'lz4-napi', zstd: '@mongodb-js/zstd' } as const
  for (const [codec, packageName] of Object.entries(packages) as Array<[keyof typeof packages, string]>) {
    test(`${codec}: a clear error that names ${packageName}`, async () => {
      const packed = await encodeRecordBatch({ records: [{ value: Buffer.from('x') }], compression: codec })
      const tried: string[] = []
      setCodecPackageLoaderForTests((name) => {
        tried.push(name)
        throw new Error(`Cannot find module '${name}'`)
      })
      const check = (error: unknown): boolean => {
        assert.ok(error instanceof CompressionCodecUnavailableError)
        assert.ok(error instanceof KafkaTsError)
        assert.equal(error.retriable, false)
        assert.equal(error.codec, codec)
        assert.equal(error.packageName, packageName)
        assert.match(error.message, new RegExp(`${codec} compression codec needs the "${packageName.replace('/', '\\/')}" package`))
        assert.match(error.message, new RegExp(`npm install ${packageName.replace('/', '\\/')}`))
        return true
      }
      await assert.rejects(compress(codec, Buffer.from('x')), check)
      await assert.rejects(decompress(codec, Buffer.from('x')), check)
      await assert.rejects(decodeRecordBatches(packed), check)
      assert.deepEqual(tried, [packageName, packageName, packageName])
      // gzip and none need no package.
      assert.ok((await decompress('gzip', await compress('gzip', Buffer.from('y')))).equals(Buffer.from('y')))
      assert.deepEqual(tried, [packageName, packageName, packageName])
    })
  }

  test('a loaded package is cached', async () => {
    let loads = 0
    setCodecPackageLoaderForTests((name) => { loads++; return require(name) })
    await compress('lz4', Buffer.from('a'))
    await compress('lz4', Buffer.from('b'))
    assert.equal(loads, 1)
  })
})
