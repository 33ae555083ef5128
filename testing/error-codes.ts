/**
 * The fake broker's handlers write Kafka error codes by name (`ErrorCode.NOT_LEADER_OR_FOLLOWER`,
 * never a bare 6); the names and numbers are the one table in protocol/error-codes.ts.
 */
export { ErrorCode } from '../protocol/error-codes'
