/**
 * Errors of group membership that end a consumer, the same class whichever group protocol
 * (classic or KIP-848) ran into them.
 */
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'

/**
 * A static member (instanceId, KIP-345) cannot go on: another consumer joined with the same
 * instanceId and took its place (FENCED_INSTANCE_ID, 82), or the instanceId is still held by
 * a member that has not left yet (UNRELEASED_INSTANCE_ID, 111, KIP-848).
 */
export class StaticMembershipError extends BrokerError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.StaticMembershipError')
  /** The static member's instanceId. */
  readonly instanceId: string

  /** The error for `code` (FENCED_INSTANCE_ID or UNRELEASED_INSTANCE_ID) in group `groupId`; its message says what to do. */
  constructor (code: number, groupId: string, instanceId: string, brokerMessage?: string | null) {
    const what = code === ErrorCode.FENCED_INSTANCE_ID
      ? `another consumer joined group "${groupId}" with the same instanceId "${instanceId}", so this one stops: give each running consumer its own instanceId`
      : `instanceId "${instanceId}" is still held by a member of group "${groupId}" that has not left: stop the other consumer, or wait for its session to expire`
    super(code, `Static membership: ${what}`, brokerMessage)
    this.name = 'StaticMembershipError'
    this.instanceId = instanceId
  }
}

/** The broker does not run the KIP-848 consumer group protocol although it was asked for. */
export class GroupProtocolUnsupportedError extends BrokerError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.GroupProtocolUnsupportedError')
  /** The error for the broker's `code` in group `groupId`; its message says how to enable KIP-848 or fall back to the classic protocol. */
  constructor (code: number, groupId: string, brokerMessage?: string | null) {
    super(code, `Group "${groupId}" with groupProtocol: 'consumer' (KIP-848): the broker lists ConsumerGroupHeartbeat but has not enabled the protocol (Kafka 3.7–3.9 need group.coordinator.rebalance.protocols=classic,consumer; 4.x the group.version=1 feature). Use groupProtocol: 'classic', or enable it on the broker`, brokerMessage)
    this.name = 'GroupProtocolUnsupportedError'
  }
}

/** The cluster does not run share groups (KIP-932), so a share consumer cannot join. */
export class ShareGroupsDisabledError extends BrokerError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ShareGroupsDisabledError')
  /** The error for the broker's `code` in share group `groupId`; its message says how to enable share groups. */
  constructor (groupId: string, code: number, detail?: string | null) {
    super(code, `Share group "${groupId}": the broker does not run share groups (KIP-932). On Kafka 4.2+ enable the share.version feature (kafka-features.sh --bootstrap-server … upgrade --feature share.version=1, or format storage with --feature share.version=1); on Kafka 4.0–4.1 set group.share.enable=true (early access)`, detail)
    this.name = 'ShareGroupsDisabledError'
  }
}

/**
 * The error that ends a static member, if `error` is one (FENCED_INSTANCE_ID,
 * UNRELEASED_INSTANCE_ID), wherever it was learnt (a heartbeat, a join, a sync, a commit)
 * and in both protocols: fatal, as in the Java client (FencedInstanceIdException) and
 * franz-go. Rejoining would fence the other consumer in turn, for ever.
 */
export function staticMembershipEnded (error: unknown, groupId: string, instanceId: string | null): StaticMembershipError | undefined {
  if (!(error instanceof BrokerError) || error instanceof StaticMembershipError) return error instanceof StaticMembershipError ? error : undefined
  if (error.code !== ErrorCode.FENCED_INSTANCE_ID && error.code !== ErrorCode.UNRELEASED_INSTANCE_ID) return undefined
  return new StaticMembershipError(error.code, groupId, instanceId ?? '', error.message)
}
