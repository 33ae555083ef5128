/**
 * GroupCoordinator: sends a member's requests to the broker that coordinates its group
 * (found through the client's coordinator cache, client/coordinators.ts), finding it again
 * when it moves (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) and retrying while it loads
 * (COORDINATOR_LOAD_IN_PROGRESS). Errors about membership are returned to the caller in
 * the response, not handled here.
 */
import type { Client } from '../client/client'
import { backoffDelay, sleep } from '../client/backoff'
import { clockTimeout } from '../client/clock'
import type { Api } from '../protocol/api'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { internal } from '../client/internal'


/** Codes that mean "ask FindCoordinator again and retry". */
export function isCoordinatorError (code: number): boolean {
  return code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || code === ErrorCode.COORDINATOR_NOT_AVAILABLE || code === ErrorCode.NOT_COORDINATOR
}

let memberConnections = 0

export class GroupCoordinator {
  readonly #client: Client
  readonly groupId: string
  /** This member's own connection to the coordinator (see ConnectionPurpose). */
  readonly #purpose: `group-${number}` = `group-${++memberConnections}`

  constructor (client: Client, groupId: string) {
    this.#client = client
    this.groupId = groupId
  }

  /** Closes this member's own coordinator connections (when the member closes). */
  /**
   * The bound of a member's leave (LeaveGroup, a leave heartbeat), retries included, on the
   * client's clock: the coordinator is asked again while it moves, so without a deadline a
   * leave it kept refusing held close() for ever.
   */
  leaveRequestBound (): { timeoutMs: number, signal: AbortSignal } {
    return { timeoutMs: 5000, signal: clockTimeout(this.#client.clock, 5000) }
  }

  closeConnections (): void {
    this.#client[internal].brokers.closePurpose(this.#purpose)
  }

  /** Forgets the coordinator `nodeId` (the client's cache): the next request looks it up again. */
  #invalidate (nodeId: number): void {
    this.#client[internal].coordinators.invalidate('group', this.groupId, nodeId)
  }

  /**
   * Sends a request to the coordinator. `errorCodeOf` picks the response's error code
   * that says whether the coordinator moved; such answers are retried after a new lookup,
   * everything else is returned as is.
   */
  async send<Request, Response> (api: Api<Request, Response>, body: Request | ((version: number) => Request), errorCodeOf: (response: Response) => number, options: { signal?: AbortSignal, timeoutMs?: number } = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const nodeId = await this.#client[internal].coordinators.lookup('group', this.groupId, { signal: options.signal })
      let response: Response
      try {
        response = await this.#client.request(api, body, { nodeId, purpose: this.#purpose, signal: options.signal, timeoutMs: options.timeoutMs })
      } catch (error) {
        // The coordinator's broker may be gone: look it up again, then retry (callers bound this with their signal).
        if (options.signal?.aborted === true || (error as { retriable?: boolean }).retriable !== true) throw error
        this.#invalidate(nodeId)
        await sleep(backoffDelay(attempt, this.#client.backoff), options.signal, error, this.#client.clock)
        continue
      }
      const code = errorCodeOf(response)
      if (!isCoordinatorError(code)) return response
      if (code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) this.#invalidate(nodeId)
      await sleep(backoffDelay(attempt, this.#client.backoff), options.signal, new BrokerError(code, `${api.name} to the coordinator of group "${this.groupId}"`), this.#client.clock)
    }
  }
}
