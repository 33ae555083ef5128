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

/** An entry of DeleteTopicsRequest.topics: the name or topic ID of the topic. */
export interface DeleteTopicState {
  /** Null (the default) when deleting by id. */
  name?: string | null
  /** The zero UUID (the default) when deleting by name. */
  topicId?: string
}

/** A DeleteTopics request (key 20). */
export interface DeleteTopicsRequest {
  /** v6+. */
  topics?: DeleteTopicState[]
  /** v1–v5. */
  topicNames?: string[]
  /** The length of time in ms to wait for the deletions to complete. */
  timeoutMs: number
}

/** An entry of DeleteTopicsResponse.responses: the results for each topic we tried to delete. */
export interface DeletableTopicResult {
  /** The topic name. */
  name: string | null
  /** v6+; the zero UUID before. */
  topicId: string
  /** The deletion error, or 0 if the deletion succeeded. */
  errorCode: number
  /** v5+; null before. */
  errorMessage: string | null
}

/** A DeleteTopics response (key 20). */
export interface DeleteTopicsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each topic we tried to delete. */
  responses: DeletableTopicResult[]
}

/** The DeleteTopics API (key 20): its versions and its request and response schemas. */
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
