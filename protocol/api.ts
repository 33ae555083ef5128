/**
 * An API: its key, the versions kafkats speaks, and its request/response codecs.
 * Each file in protocol/apis/ defines one with `defineApi`, describing the fields once
 * (see schema.ts); an API whose path is hot passes hand-written codecs as overrides.
 */
import { compileStruct, inRange, type StructType, type VersionRange } from './schema'
import type { Reader } from './reader'
import type { Writer } from './writer'
import { ProtocolError } from './errors'

/** One Kafka API (Produce, Fetch, Metadata...): its key, the versions kafkats speaks, the schemas of its request and response, and their encoders and decoders. */
export interface Api<Request, Response> {
  /** The API key, e.g. 0 for Produce. */
  readonly key: number
  /** The API's name, e.g. 'Produce'. */
  readonly name: string
  /** Lowest version kafkats speaks: the lowest a Kafka 4.x broker accepts (KIP-896), or lower where an older broker has nothing else (DescribeConfigs v0 on 0.11 and 1.0). */
  readonly minVersion: number
  /** Highest version kafkats speaks. */
  readonly maxVersion: number
  /** The versions that use the flexible encoding (compact strings and arrays, tagged fields; KIP-482). */
  readonly flexibleVersions: VersionRange
  /** The request's schema, every version's fields. */
  readonly request: StructType
  /** The response's schema, every version's fields. */
  readonly response: StructType
  /** Whether `version` uses the flexible encoding. */
  isFlexible: (version: number) => boolean
  /** Writes a request body (without the request header) at `version`. */
  encodeRequest: (w: Writer, version: number, body: Request) => void
  /** Reads a request body (after the request header) at `version`. */
  decodeRequest: (r: Reader, version: number) => Request
  /** Writes a response body (without the response header) at `version`. */
  encodeResponse: (w: Writer, version: number, body: Response) => void
  /** Reads a response body (after the response header) at `version`. */
  decodeResponse: (r: Reader, version: number) => Response
}

/**
 * An API whatever its request and response types: for tables of APIs and code that only
 * frames, routes or counts requests. `any`, not `unknown`: an Api takes its request and
 * response as encoder arguments, so Api<ProduceRequest, …> is not assignable to Api<unknown, unknown>.
 */
export type AnyApi = Api<any, any>

export interface ApiSpec {
  key: number
  name: string
  minVersion: number
  maxVersion: number
  flexibleVersions: VersionRange
  request: StructType
  response: StructType
}

export interface ApiOverrides<Request, Response> {
  encodeRequest?: Api<Request, Response>['encodeRequest']
  decodeResponse?: Api<Request, Response>['decodeResponse']
}

export function defineApi<Request, Response> (spec: ApiSpec, overrides: ApiOverrides<Request, Response> = {}): Api<Request, Response> {
  const isFlexible = (version: number): boolean => inRange(spec.flexibleVersions, version)
  const check = (version: number): void => {
    if (!Number.isInteger(version) || version < spec.minVersion || version > spec.maxVersion) {
      throw new ProtocolError(`${spec.name} v${version} is not spoken by kafkats (it speaks v${spec.minVersion}–v${spec.maxVersion})`)
    }
  }
  const schemaApi: Api<Request, Response> = {
    ...spec,
    isFlexible,
    encodeRequest: (w, version, body) => { check(version); compileStruct(spec.request, version, isFlexible(version)).encode(w, body) },
    decodeRequest: (r, version) => { check(version); return compileStruct(spec.request, version, isFlexible(version)).decode(r) },
    encodeResponse: (w, version, body) => { check(version); compileStruct(spec.response, version, isFlexible(version)).encode(w, body) },
    decodeResponse: (r, version) => { check(version); return compileStruct(spec.response, version, isFlexible(version)).decode(r) }
  }
  return {
    ...schemaApi,
    encodeRequest: overrides.encodeRequest ?? schemaApi.encodeRequest,
    decodeResponse: overrides.decodeResponse ?? schemaApi.decodeResponse
  }
}

/** The schema-driven codecs of an API, ignoring hand-written overrides (tests compare both). */
export function schemaCodecs<Request, Response> (api: Api<Request, Response>): Api<Request, Response> {
  return defineApi<Request, Response>(api)
}
