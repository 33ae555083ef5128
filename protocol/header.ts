/**
 * Request and response headers, and the size-prefixed frames around them.
 *
 *   Request header v1 => api_key:int16 api_version:int16 correlation_id:int32 client_id:NULLABLE_STRING
 *   Request header v2 => v1 + tagged fields (client_id stays a non-compact string)
 *   Response header v0 => correlation_id:int32
 *   Response header v1 => v0 + tagged fields
 *
 * Flexible API versions use request header v2 and response header v1, except that
 * ApiVersions responses always use header v0: a client that sent a version the broker
 * does not know must still be able to read the answer.
 */
import type { AnyApi, Api } from './api'
import { Reader } from './reader'
import { Writer } from './writer'

export const API_VERSIONS_KEY = 18

export function requestHeaderVersion (api: AnyApi, version: number): 1 | 2 {
  return api.isFlexible(version) ? 2 : 1
}

export function responseHeaderVersion (api: AnyApi, version: number): 0 | 1 {
  if (api.key === API_VERSIONS_KEY) return 0
  return api.isFlexible(version) ? 1 : 0
}

/** A whole request frame: int32 size, header, body. */
export function encodeRequestFrame<Request> (api: Api<Request, any>, version: number, correlationId: number, clientId: string | null, body: Request, writer = new Writer(256)): Buffer {
  const start = writer.offset
  writeRequestFrame(api, version, correlationId, clientId, body, writer)
  return writer.buffer.subarray(start, writer.offset)
}

/**
 * The frame of encodeRequestFrame as the chunks to write in order, of `size` bytes in
 * all: record batches of REFERENCE_MIN_BYTES or more are not copied into it but written
 * from their own buffers (which must not change until the frame is written).
 */
export function encodeRequestChunks<Request> (api: Api<Request, any>, version: number, correlationId: number, clientId: string | null, body: Request): { chunks: Uint8Array[], size: number } {
  const writer = new Writer(256, true)
  writeRequestFrame(api, version, correlationId, clientId, body, writer)
  return { chunks: writer.chunks(), size: writer.offset + writer.referencedBytes }
}

function writeRequestFrame<Request> (api: Api<Request, any>, version: number, correlationId: number, clientId: string | null, body: Request, writer: Writer): void {
  const sizeAt = writer.reserve(4)
  writer.int16(api.key).int16(version).int32(correlationId).string(clientId)
  if (requestHeaderVersion(api as AnyApi, version) === 2) writer.emptyTaggedFields()
  api.encodeRequest(writer, version, body)
  writer.patchInt32(sizeAt, writer.offset + writer.referencedBytes - sizeAt - 4)
}

export interface RequestHeader {
  apiKey: number
  apiVersion: number
  correlationId: number
  clientId: string | null
}

/** Reads a request header (the fake broker uses this); the reader is left at the body. */
export function decodeRequestHeader (r: Reader, isFlexible: (apiKey: number, version: number) => boolean): RequestHeader {
  const apiKey = r.int16()
  const apiVersion = r.int16()
  const correlationId = r.int32()
  const clientId = r.nullableString()
  if (isFlexible(apiKey, apiVersion)) r.taggedFields()
  return { apiKey, apiVersion, correlationId, clientId }
}

/** Decodes a response frame (without its size prefix) whose correlation id was already matched. */
export function decodeResponseFrame<Response> (api: Api<any, Response>, version: number, frame: Buffer): Response {
  const r = new Reader(frame, 4)
  if (responseHeaderVersion(api as AnyApi, version) === 1) r.taggedFields()
  return api.decodeResponse(r, version)
}

/** A whole response frame: int32 size, header, body (the fake broker uses this). */
export function encodeResponseFrame<Response> (api: Api<any, Response>, version: number, correlationId: number, body: Response, writer = new Writer(256)): Buffer {
  const start = writer.offset
  const sizeAt = writer.reserve(4)
  writer.int32(correlationId)
  if (responseHeaderVersion(api as AnyApi, version) === 1) writer.emptyTaggedFields()
  api.encodeResponse(writer, version, body)
  writer.patchInt32(sizeAt, writer.offset - sizeAt - 4)
  return writer.buffer.subarray(start, writer.offset)
}
