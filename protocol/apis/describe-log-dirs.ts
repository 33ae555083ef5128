/**
 * DescribeLogDirs (key 35): each log directory of the answering broker with the size
 * and offset lag of every replica in it (KIP-113), and from v4 its total and usable bytes (KIP-827).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v5):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: response adds errorCode
 * - v4: response adds results.totalBytes, results.usableBytes
 * - v5: response adds results.isCordoned
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeLogDirsDescribableLogDirTopic {
  topic: string
  partitions: number[]
}

export interface DescribeLogDirsRequest {
  topics?: DescribeLogDirsDescribableLogDirTopic[] | null
}

export interface DescribeLogDirsPartition {
  partitionIndex: number
  partitionSize: bigint
  offsetLag: bigint
  isFutureKey: boolean
}

export interface DescribeLogDirsTopic {
  name: string
  partitions: DescribeLogDirsPartition[]
}

export interface DescribeLogDirsResult {
  errorCode: number
  logDir: string
  topics: DescribeLogDirsTopic[]
  /** v4+. */
  totalBytes: bigint
  /** v4+. */
  usableBytes: bigint
  /** v5+. */
  isCordoned: boolean
}

export interface DescribeLogDirsResponse {
  throttleTimeMs: number
  /** v3+. */
  errorCode: number
  results: DescribeLogDirsResult[]
}

export const DescribeLogDirs = defineApi<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  key: 35,
  name: 'DescribeLogDirs',
  minVersion: 1,
  maxVersion: 5,
  flexibleVersions: '2+',
  request: struct(
    field('topics', array(struct(
      field('topic', 'string', '1+'),
      field('partitions', array('int32'), '1+')
    )), '1+', { nullableVersions: '1+' })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '3+'),
    field('results', array(struct(
      field('errorCode', 'int16', '1+'),
      field('logDir', 'string', '1+'),
      field('topics', array(struct(
        field('name', 'string', '1+'),
        field('partitions', array(struct(
          field('partitionIndex', 'int32', '1+'),
          field('partitionSize', 'int64', '1+'),
          field('offsetLag', 'int64', '1+'),
          field('isFutureKey', 'bool', '1+')
        )), '1+')
      )), '1+'),
      field('totalBytes', 'int64', '4+', { default: -1n }),
      field('usableBytes', 'int64', '4+', { default: -1n }),
      field('isCordoned', 'bool', '5+')
    )), '1+')
  )
})
