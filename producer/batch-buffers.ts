/**
 * BatchBuffers: the buffers record batches are encoded into, reused.
 *
 * A batch of about batchMaxBytes (1 MB by default) was encoded into a fresh buffer of its
 * own, outside the V8 heap, that became garbage when the batch was acknowledged. At
 * 100-200 MB/s of records that is external memory V8 answers with collections ("external
 * memory pressure": 13 of a 500,000-record 1 KiB run's 43 collections) and fresh pages
 * the kernel faults in and zeroes. A buffer comes back here only when the one request
 * that carried its batch was answered: the broker answers after reading the whole
 * request, so the socket holds no reference into the buffer any more. A batch that was
 * ever ambiguous (a timed-out request may still sit in a socket's write queue) leaves its
 * buffer to the garbage collector.
 *
 * Compressed batches use them too: the records are written uncompressed into the buffer,
 * compressed from it (on libuv's threadpool for lz4 and zstd), and the compressed bytes
 * copied back over them after the header, so a compressed batch costs no batch-sized
 * buffer of its own besides the one the compression package returns.
 */
import { Writer } from '../protocol/writer'

/** Batches smaller than half the pooled size get a buffer of their own size, as before. */
export class BatchBuffers {
  readonly #free: ArrayBuffer[] = []
  readonly #maxBuffers: number
  /** The size of every pooled buffer: batchMaxBytes (a batch's upper-bound size never passes it but for one record larger than that). */
  readonly #bytes: number

  /** Keeps up to `maxBuffers` idle buffers of `bytes` each. */
  constructor (maxBuffers: number, bytes: number) {
    this.#maxBuffers = maxBuffers
    this.#bytes = bytes
  }

  /** A writer over a pooled buffer for a batch of up to `sizeBound` bytes (an idle one, or a new one of the pooled size), or undefined when the batch is too small or too large for one: the encoder makes its own. */
  take (sizeBound: number): Writer | undefined {
    if (sizeBound > this.#bytes || 2 * sizeBound < this.#bytes) return undefined
    const writer = new Writer(0)
    const free = this.#free.pop()
    writer.buffer = free === undefined ? Buffer.allocUnsafeSlow(this.#bytes) : Buffer.from(free)
    return writer
  }

  /** Takes back the buffer under `encoded` (a batch whose only request was answered): nothing may read `encoded` after. Buffers not of the pooled size are left to the collector. */
  give (encoded: Buffer): void {
    const whole = encoded.buffer
    if (encoded.byteOffset !== 0 || whole.byteLength !== this.#bytes || !(whole instanceof ArrayBuffer)) return
    if (this.#free.length < this.#maxBuffers) this.#free.push(whole)
  }

  /** Idle buffers (for tests). */
  get idle (): number {
    return this.#free.length
  }
}
