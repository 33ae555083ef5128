/**
 * The scheduler of a concurrent run(): one queue per ordering key, and the keys whose next
 * record may start. A key has at most one record out (taken and not released), so its
 * records start strictly in the order they were pushed (offset order); different keys go
 * at once, in the order they became ready, so a key with many records does not hold the
 * others back. A record that failed and waits to be retried keeps its key taken (its own
 * key waits; the others do not). Knows nothing of Kafka: what a key is, and when a record
 * is stale, is the run's (concurrent-run.ts).
 */

/** One key's queue. The item that was taken keeps a reference to it (`push`'s result) to release it without a lookup. */
export interface KeyQueue<T> {
  readonly key: string
  items: T[]
  head: number
  /** A record of the key is out (running, or waiting to be retried). */
  taken: boolean
  /** Dropped from the scheduler's map (emptied while not taken): a later push makes a new queue. */
  gone: boolean
}

export class KeyScheduler<T> {
  readonly #queues = new Map<string, KeyQueue<T>>()
  /**
   * Queues whose key is not taken and that have records, in the order they became ready (a
   * queue may be here more than once, or be taken or empty by now: take() skips those).
   * Queue objects rather than keys: taking and releasing a record costs no Map lookup.
   */
  #ready: Array<KeyQueue<T>> = []
  #readyHead = 0
  /** Records pushed and not taken yet. */
  #queued = 0

  get queued (): number {
    return this.#queued
  }

  /** Queues `item` behind its key's earlier records; returns the key's queue (for release()). */
  push (key: string, item: T): KeyQueue<T> {
    let queue = this.#queues.get(key)
    if (queue === undefined) {
      this.#queues.set(key, queue = { key, items: [], head: 0, taken: false, gone: false })
      this.#ready.push(queue)
    } else if (!queue.taken && queue.head === queue.items.length) {
      // Emptied while not taken (its records were dropped): ready again.
      this.#ready.push(queue)
    }
    queue.items.push(item)
    this.#queued++
    return queue
  }

  /** The next record whose key has nothing out (its key now taken); undefined when none may start. */
  take (): T | undefined {
    while (this.#readyHead < this.#ready.length) {
      const queue = this.#ready[this.#readyHead]
      this.#ready[this.#readyHead++] = undefined as unknown as KeyQueue<T>
      if (this.#readyHead > 1024 && this.#readyHead * 2 > this.#ready.length) {
        this.#ready = this.#ready.slice(this.#readyHead)
        this.#readyHead = 0
      }
      if (queue.gone || queue.taken || queue.head === queue.items.length) continue
      const item = queue.items[queue.head]
      queue.items[queue.head++] = undefined as unknown as T
      if (queue.head > 64 && queue.head * 2 > queue.items.length) {
        queue.items = queue.items.slice(queue.head)
        queue.head = 0
      }
      this.#queued--
      queue.taken = true
      return item
    }
    return undefined
  }

  /** The key's record out is done (finished, dropped or given up): its next record may start. */
  release (queue: KeyQueue<T>): void {
    if (queue.gone) return
    queue.taken = false
    if (queue.head === queue.items.length) this.#forget(queue)
    else this.#ready.push(queue)
  }

  /** Removes the key's queued records (not the one out) and returns them: they must not start after a record of theirs was given up. */
  dropKey (key: string): T[] {
    const queue = this.#queues.get(key)
    if (queue === undefined) return []
    const dropped = queue.items.slice(queue.head)
    this.#queued -= dropped.length
    queue.items = []
    queue.head = 0
    if (!queue.taken) this.#forget(queue)
    return dropped
  }

  /** Removes every queued record (the ones out stay taken until released) and returns them. */
  dropAll (): T[] {
    const dropped: T[] = []
    for (const key of [...this.#queues.keys()]) dropped.push(...this.dropKey(key))
    return dropped
  }

  #forget (queue: KeyQueue<T>): void {
    queue.gone = true
    this.#queues.delete(queue.key)
  }
}
