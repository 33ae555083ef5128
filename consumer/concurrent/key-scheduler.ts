/**
 * The scheduler of a concurrent run(): one queue per ordering key, and the keys whose next
 * record may start. A key has at most one record out (taken and not released), so its
 * records start strictly in the order they were pushed (offset order); different keys go
 * at once, in the order they became ready, so a key with many records does not hold the
 * others back. A record that failed and waits to be retried keeps its key taken (its own
 * key waits; the others do not). Knows nothing of Kafka: what a key is, and when a record
 * is stale, is the run's (concurrent-run.ts).
 */

interface KeyQueue<T> {
  items: T[]
  head: number
  /** A record of the key is out (running, or waiting to be retried). */
  taken: boolean
}

export class KeyScheduler<T> {
  readonly #queues = new Map<string, KeyQueue<T>>()
  /** Keys not taken whose queue has records, in the order they became ready. */
  #ready: string[] = []
  #readyHead = 0
  /** Records pushed and not taken yet. */
  #queued = 0

  get queued (): number {
    return this.#queued
  }

  push (key: string, item: T): void {
    let queue = this.#queues.get(key)
    if (queue === undefined) {
      this.#queues.set(key, queue = { items: [], head: 0, taken: false })
      this.#ready.push(key)
    } else if (!queue.taken && queue.head === queue.items.length) {
      // Emptied while not taken (its records were dropped): ready again.
      this.#ready.push(key)
    }
    queue.items.push(item)
    this.#queued++
  }

  /** The next record whose key has nothing out, and its key (now taken); undefined when none may start. */
  take (): { key: string, item: T } | undefined {
    while (this.#readyHead < this.#ready.length) {
      const key = this.#ready[this.#readyHead++]
      if (this.#readyHead > 1024 && this.#readyHead * 2 > this.#ready.length) {
        this.#ready = this.#ready.slice(this.#readyHead)
        this.#readyHead = 0
      }
      const queue = this.#queues.get(key)
      if (queue === undefined || queue.taken || queue.head === queue.items.length) continue
      const item = queue.items[queue.head]
      queue.items[queue.head++] = undefined as unknown as T
      if (queue.head > 64 && queue.head * 2 > queue.items.length) {
        queue.items = queue.items.slice(queue.head)
        queue.head = 0
      }
      this.#queued--
      queue.taken = true
      return { key, item }
    }
    return undefined
  }

  /** The key's record out is done (finished, dropped or given up): its next record may start. */
  release (key: string): void {
    const queue = this.#queues.get(key)
    if (queue === undefined) return
    queue.taken = false
    if (queue.head === queue.items.length) this.#queues.delete(key)
    else this.#ready.push(key)
  }

  /** Removes the key's queued records (not the one out) and returns them: they must not start after a record of theirs was given up. */
  dropKey (key: string): T[] {
    const queue = this.#queues.get(key)
    if (queue === undefined) return []
    const dropped = queue.items.slice(queue.head)
    this.#queued -= dropped.length
    queue.items = []
    queue.head = 0
    if (!queue.taken) this.#queues.delete(key)
    return dropped
  }

  /** Removes every queued record (the ones out stay taken until released) and returns them. */
  dropAll (): T[] {
    const dropped: T[] = []
    for (const key of [...this.#queues.keys()]) dropped.push(...this.dropKey(key))
    return dropped
  }
}
