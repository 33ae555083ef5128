/**
 * SeededRandom: mulberry32, a small seeded PRNG — every generated frame, key or timing in
 * the tests can be reproduced from the seed a test prints.
 */
export class SeededRandom {
  private state: number

  constructor (seed: number) {
    this.state = seed >>> 0
  }

  u32 (): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** A number in [0, 1). */
  next (): number {
    return this.u32() / 0x100000000
  }

  /** An integer in [0, n). */
  below (n: number): number {
    return Math.floor(this.next() * n)
  }

  /** An integer in [min, max]. */
  between (min: number, max: number): number {
    return min + this.below(max - min + 1)
  }

  chance (p: number): boolean {
    return this.next() < p
  }

  pick<T> (items: readonly T[]): T {
    return items[this.below(items.length)]
  }

  bytes (n: number): Buffer {
    const out = Buffer.allocUnsafe(n)
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff
    return out
  }
}
