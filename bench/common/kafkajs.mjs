// What the kafkajs runners share. kafkajs ships gzip only; for lz4 they register a small
// adapter over lz4-napi (the package kafkats itself uses, found in the main package's
// node_modules) in kafkajs's CompressionCodecs.
import { require } from './runner.mjs'

export const LZ4_NOTE = 'lz4 via an lz4-napi adapter in CompressionCodecs'

/** Registers the lz4-napi adapter with kafkajs when the run uses lz4. */
export function useLz4Adapter (compression, { CompressionTypes, CompressionCodecs }) {
  if (compression !== 'lz4') return
  const lz4 = require('lz4-napi')
  CompressionCodecs[CompressionTypes.LZ4] = () => ({
    compress: async encoder => await lz4.compressFrame(encoder.buffer),
    decompress: async buffer => await lz4.decompressFrame(buffer)
  })
}
