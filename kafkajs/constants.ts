/**
 * kafkajs's enums, with the numbers Kafka uses on the wire (kafkajs passes them through).
 */

/** The log levels (`logLevel` option, `logCreator`): a level logs its own entries and the more severe ones. */
export const logLevel = {
  /** Logs nothing. */
  NOTHING: 0,
  /** Failures. */
  ERROR: 1,
  /** Trouble the client recovers from. */
  WARN: 2,
  /** What the client does (the default). */
  INFO: 4,
  /** Every detail (a line per request and answer). */
  DEBUG: 5
} as const
export type logLevel = typeof logLevel[keyof typeof logLevel]

/** The codecs a send's `compression` may name; all of them work out of the box in kafkats (native codecs). */
export const CompressionTypes = {
  /** No compression. */
  None: 0,
  /** gzip (Node's zlib). */
  GZIP: 1,
  /** Snappy (the `snappy` optional dependency). */
  Snappy: 2,
  /** LZ4 (the `lz4-napi` optional dependency). */
  LZ4: 3,
  /** Zstandard (the `@mongodb-js/zstd` optional dependency). */
  ZSTD: 4
} as const
export type CompressionTypes = typeof CompressionTypes[keyof typeof CompressionTypes]

/** The kinds of resource that have configs (`describeConfigs`, `alterConfigs`). */
export const ConfigResourceTypes = {
  /** Unknown. */
  UNKNOWN: 0,
  /** A topic, by name. */
  TOPIC: 2,
  /** A broker, by node id (as a string). */
  BROKER: 4,
  /** A broker's loggers, by the broker's node id. */
  BROKER_LOGGER: 8
} as const
export type ConfigResourceTypes = typeof ConfigResourceTypes[keyof typeof ConfigResourceTypes]

/** Where a config's value comes from (`describeConfigs`). */
export const ConfigSource = {
  /** Unknown. */
  UNKNOWN: 0,
  /** Set on the topic. */
  TOPIC_CONFIG: 1,
  /** Set dynamically on this broker. */
  DYNAMIC_BROKER_CONFIG: 2,
  /** Set dynamically as every broker's default. */
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  /** Set in the broker's server.properties. */
  STATIC_BROKER_CONFIG: 4,
  /** Kafka's default. */
  DEFAULT_CONFIG: 5,
  /** Set dynamically on the broker's loggers. */
  DYNAMIC_BROKER_LOGGER_CONFIG: 6
} as const
export type ConfigSource = typeof ConfigSource[keyof typeof ConfigSource]

/** The kinds of resource an ACL is about. */
export const AclResourceTypes = {
  /** Unknown. */
  UNKNOWN: 0,
  /** Any kind (filters only). */
  ANY: 1,
  /** A topic. */
  TOPIC: 2,
  /** A consumer group. */
  GROUP: 3,
  /** The cluster. */
  CLUSTER: 4,
  /** A transactional id. */
  TRANSACTIONAL_ID: 5,
  /** A delegation token. */
  DELEGATION_TOKEN: 6
} as const
export type AclResourceTypes = typeof AclResourceTypes[keyof typeof AclResourceTypes]

/** The operations an ACL allows or denies. */
export const AclOperationTypes = {
  /** Unknown. */
  UNKNOWN: 0,
  /** Any operation (filters only). */
  ANY: 1,
  /** Every operation. */
  ALL: 2,
  /** Read (fetch, join a group, commit). */
  READ: 3,
  /** Write (produce). */
  WRITE: 4,
  /** Create (topics). */
  CREATE: 5,
  /** Delete (topics, records, groups). */
  DELETE: 6,
  /** Alter (partitions, ACLs). */
  ALTER: 7,
  /** Describe (metadata, offsets, groups). */
  DESCRIBE: 8,
  /** The brokers' own requests to each other. */
  CLUSTER_ACTION: 9,
  /** Describe configs. */
  DESCRIBE_CONFIGS: 10,
  /** Alter configs. */
  ALTER_CONFIGS: 11,
  /** Idempotent produce. */
  IDEMPOTENT_WRITE: 12
} as const
export type AclOperationTypes = typeof AclOperationTypes[keyof typeof AclOperationTypes]

/** Whether an ACL allows or denies. */
export const AclPermissionTypes = {
  /** Unknown. */
  UNKNOWN: 0,
  /** Either (filters only). */
  ANY: 1,
  /** Denies the operation. */
  DENY: 2,
  /** Allows the operation. */
  ALLOW: 3
} as const
export type AclPermissionTypes = typeof AclPermissionTypes[keyof typeof AclPermissionTypes]

/** How an ACL's resource name matches resources. */
export const ResourcePatternTypes = {
  /** Unknown. */
  UNKNOWN: 0,
  /** Any pattern type (filters only). */
  ANY: 1,
  /** Every ACL that applies to the name: literal, prefixed or wildcard (filters only). */
  MATCH: 2,
  /** The name as it is (`*`: every resource). */
  LITERAL: 3,
  /** Every resource whose name starts with it. */
  PREFIXED: 4
} as const
export type ResourcePatternTypes = typeof ResourcePatternTypes[keyof typeof ResourcePatternTypes]

/** kafkajs's ResourceTypes (deprecated there in favour of AclResourceTypes / ConfigResourceTypes). */
export const ResourceTypes = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const
