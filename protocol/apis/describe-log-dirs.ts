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

/** An entry of DescribeLogDirsRequest.topics: each topic that we want to describe log directories for. */
export interface DescribeLogDirsDescribableLogDirTopic {
  /** The topic name. */
  topic: string
  /** The partition indexes. */
  partitions: number[]
}

/** A DescribeLogDirs request (key 35). */
export interface DescribeLogDirsRequest {
  /** Each topic that we want to describe log directories for, or null for all topics. */
  topics?: DescribeLogDirsDescribableLogDirTopic[] | null
}

/** An entry of DescribeLogDirsTopic.partitions: the partitions. */
export interface DescribeLogDirsPartition {
  /** The partition index. */
  partitionIndex: number
  /** The size of the log segments in this partition in bytes. */
  partitionSize: bigint
  /** How far the log is behind: the high watermark (current log) or the replica's log end offset (future log). */
  offsetLag: bigint
  /** True if this log was created by AlterReplicaLogDirs and will replace the replica's current log. */
  isFutureKey: boolean
}

/** An entry of DescribeLogDirsResult.topics: the topics. */
export interface DescribeLogDirsTopic {
  /** The topic name. */
  name: string
  /** The partitions. */
  partitions: DescribeLogDirsPartition[]
}

/** An entry of DescribeLogDirsResponse.results: the log directories. */
export interface DescribeLogDirsResult {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The absolute log directory path. */
  logDir: string
  /** The topics. */
  topics: DescribeLogDirsTopic[]
  /** v4+. */
  totalBytes: bigint
  /** v4+. */
  usableBytes: bigint
  /** v5+. */
  isCordoned: boolean
}

/** A DescribeLogDirs response (key 35). */
export interface DescribeLogDirsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v3+. */
  errorCode: number
  /** The log directories. */
  results: DescribeLogDirsResult[]
}

/** The DescribeLogDirs API (key 35): its versions and its request and response schemas. */
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
