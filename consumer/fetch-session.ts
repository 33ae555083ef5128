/**
 * FetchSession: incremental fetch sessions (KIP-227) with one broker.
 *
 * The first request (session id 0, epoch 0) is full and asks the broker for a session;
 * later ones carry only partitions whose fetch position changed or that joined, and name
 * those that left (`forgotten`). The broker answers only partitions with news.
 *
 * Sessions are closed, never just dropped (a broker holds a few per client, evicting by
 * age): after a failed request or INVALID_FETCH_SESSION_EPOCH the next request is full
 * and carries the old id with epoch 0, which closes that session and makes a new one;
 * after FETCH_SESSION_ID_NOT_FOUND there is nothing to close (id 0). When the source
 * stops, a request with the final epoch (-1) closes the session (`close`).
 *
 * A request that opens a session asks for no wait (`opening`): the broker makes the session
 * when it answers, and only the answer names it, so a long poll ended before its answer
 * (a partition positioned meanwhile, close()) would leave the broker a session nobody can
 * close. Long polls are incremental, in a session whose id is known. When the broker
 * grants no session (its cache is full) or just lost ours, the next full request long-polls
 * as any other, so a broker that keeps refusing does not make the source spin.
 */
import { ErrorCode } from '../protocol/error-codes'

export interface SessionPartition {
  topic: string
  topicId: string
  partition: number
  fetchOffset: bigint
  lastFetchedEpoch: number
  currentLeaderEpoch: number
  maxBytes: number
}

export class FetchSession {
  id = 0
  epoch = 0
  /** What the broker's session holds, by `${topic}-${partition}`. */
  readonly #inSession = new Map<string, SessionPartition>()
  /** The last full request got no session, or the session was just lost: the next full one long-polls. */
  #refused = false

  /** The next request opens a session and should ask for no wait (see above). */
  get opening (): boolean {
    return this.epoch === 0 && !this.#refused
  }

  /** The partitions to put in the next request, and those to drop from the session. */
  build (wanted: Map<string, SessionPartition>): { include: SessionPartition[], forget: SessionPartition[], full: boolean } {
    const full = this.epoch === 0
    const include: SessionPartition[] = []
    const forget: SessionPartition[] = []
    if (full) {
      this.#inSession.clear()
      for (const [key, p] of wanted) {
        include.push(p)
        this.#inSession.set(key, p)
      }
      return { include, forget, full }
    }
    for (const [key, p] of wanted) {
      const held = this.#inSession.get(key)
      if (held === undefined || held.fetchOffset !== p.fetchOffset || held.lastFetchedEpoch !== p.lastFetchedEpoch ||
        held.currentLeaderEpoch !== p.currentLeaderEpoch || held.maxBytes !== p.maxBytes || held.topicId !== p.topicId) {
        include.push(p)
        this.#inSession.set(key, p)
      }
    }
    for (const [key, p] of this.#inSession) {
      if (!wanted.has(key)) {
        forget.push(p)
        this.#inSession.delete(key)
      }
    }
    return { include, forget, full }
  }

  /** Applies the broker's answer: a new session id, the next epoch, or a reset after a session error. */
  onResponse (errorCode: number, sessionId: number): void {
    if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) { // gone already
      this.forget()
      this.#refused = true
      return
    }
    if (errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH) {
      this.restart()
      this.#refused = true
      return
    }
    if (this.epoch === 0) {
      this.id = sessionId
      this.epoch = sessionId === 0 ? 0 : 1
      this.#refused = sessionId === 0
      if (sessionId === 0) this.#inSession.clear()
      return
    }
    this.epoch = this.epoch === 0x7fffffff ? 1 : this.epoch + 1
  }

  /** The next request is full and closes this session (if any) as it makes a new one. */
  restart (): void {
    this.epoch = 0
    this.#inSession.clear()
  }

  /** Forgets the session without closing it (the broker has none, or it was just closed). */
  forget (): void {
    this.id = 0
    this.epoch = 0
    this.#inSession.clear()
  }

  /** Hands back the id to close with a final-epoch request, and forgets the session; 0 if there is none. */
  close (): number {
    const id = this.id
    this.forget()
    return id
  }
}
