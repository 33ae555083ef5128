/**
 * Every API kafkats speaks, one module per API. Adding an API: write its file here,
 * export it below and add it to `allApis` (the conformance, round-trip and fuzz
 * tests iterate over this list).
 */
import type { Api } from '../api'
import { ApiVersions } from './api-versions'

export { ApiVersions }
export type * from './api-versions'

export const allApis: ReadonlyArray<Api<any, any>> = [
  ApiVersions
]
