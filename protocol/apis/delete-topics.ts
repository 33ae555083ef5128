/**
 * DeleteTopics (key 20): deletes topics by name or (v6+) by topic id.
 *
 * Version notes:
 * - v0 was removed in Kafka 4.0 (KIP-896): v1 is the lowest a 4.x broker accepts
 * - v1: throttleTimeMs in the response
 * - v2: on quota violation the broker answers before throttling
 * - v3: may answer TOPIC_DELETION_DISABLED
 * - v4: flexible
 * - v5: errorMessage in the response; may answer THROTTLING_QUOTA_EXCEEDED (KIP-599)
 * - v6: `topics` (name or topic id) replaces `topicNames`; results carry the topic id and
 *   a name that may be null (UNKNOWN_TOPIC_ID when an id is not found)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DeleteTopicState {
  /** Null (the default) when deleting by id. */
  name?: string | null
  /** The zero UUID (the default) when deleting by name. */
  topicId?: string
}

export interface DeleteTopicsRequest {
  /** v6+. */
  topics?: DeleteTopicState[]
  /** v1–v5. */
  topicNames?: string[]
  timeoutMs: number
}

export interface DeletableTopicResult {
  name: string | null
  /** v6+; the zero UUID before. */
  topicId: string
  errorCode: number
  /** v5+; null before. */
  errorMessage: string | null
}

export interface DeleteTopicsResponse {
  throttleTimeMs: number
  responses: DeletableTopicResult[]
}

export const DeleteTopics = defineApi<DeleteTopicsRequest, DeleteTopicsResponse>({
  key: 20,
  name: 'DeleteTopics',
  minVersion: 1,
  maxVersion: 6,
  flexibleVersions: '4+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '6+', { nullableVersions: '6+', default: null }),
      field('topicId', 'uuid', '6+')
    )), '6+'),
    field('topicNames', array('string'), '0-5'),
    field('timeoutMs', 'int32', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('responses', array(struct(
      field('name', 'string', '0+', { nullableVersions: '6+' }),
      field('topicId', 'uuid', '6+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '5+', { nullableVersions: '5+', default: null })
    )), '0+')
  )
})
