/**
 * kafkajs's enums, with the numbers Kafka uses on the wire (kafkajs passes them through).
 */
export const logLevel = { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 } as const
export type logLevel = typeof logLevel[keyof typeof logLevel]

export const CompressionTypes = { None: 0, GZIP: 1, Snappy: 2, LZ4: 3, ZSTD: 4 } as const
export type CompressionTypes = typeof CompressionTypes[keyof typeof CompressionTypes]

export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const
export type ConfigResourceTypes = typeof ConfigResourceTypes[keyof typeof ConfigResourceTypes]

export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6
} as const
export type ConfigSource = typeof ConfigSource[keyof typeof ConfigSource]

export const AclResourceTypes = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const
export type AclResourceTypes = typeof AclResourceTypes[keyof typeof AclResourceTypes]

export const AclOperationTypes = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12
} as const
export type AclOperationTypes = typeof AclOperationTypes[keyof typeof AclOperationTypes]

export const AclPermissionTypes = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const
export type AclPermissionTypes = typeof AclPermissionTypes[keyof typeof AclPermissionTypes]

export const ResourcePatternTypes = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const
export type ResourcePatternTypes = typeof ResourcePatternTypes[keyof typeof ResourcePatternTypes]

/** kafkajs's ResourceTypes (deprecated there in favour of AclResourceTypes / ConfigResourceTypes). */
export const ResourceTypes = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const
