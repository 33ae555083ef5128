// The member configuration of the share-group churn test (share-churn.test.ts, member
// program share-churn-member.ts) and the tally of what the members wrote: per record, the
// delivery counts of the acquisitions the broker reported and of the processings.
import * as fs from 'node:fs'

export interface ShareChurnMemberConfig {
  label: string
  bootstrap: string[]
  topic: string
  groupId: string
  output: string
  maxRecords: number
  /** Some batches wait up to this long before they are written, so kills and stops meet work in flight. */
  maxProcessingDelayMs: number
  seed: number
  closeTimeoutMs: number
}

/** One delivery of a record: its delivery count and the member process (registry index) it went to. */
export interface Delivery {
  deliveryCount: number
  by: number
}

/**
 * Per partition and offset: the acquisitions ("A" lines) and processings ("P" lines) the
 * member processes wrote. Files are read incrementally; a line a SIGKILL cut short is
 * dropped once its process has exited (counted in `tornLines`).
 */
export class ShareTally {
  readonly acquired: Array<Map<number, Delivery[]>>
  readonly processed: Array<Map<number, Delivery[]>>
  /** Distinct records processed. */
  distinct = 0
  tornLines = 0
  badLines: string[] = []
  readonly #files = new Map<number, { path: string, position: number, partial: string }>()

  constructor (partitions: number) {
    this.acquired = Array.from({ length: partitions }, () => new Map())
    this.processed = Array.from({ length: partitions }, () => new Map())
  }

  update (members: Array<{ index: number, output: string, exit: unknown }>): void {
    for (const member of members) {
      let file = this.#files.get(member.index)
      if (file === undefined) this.#files.set(member.index, file = { path: member.output, position: 0, partial: '' })
      let data: Buffer
      try {
        const fd = fs.openSync(file.path, 'r')
        try {
          const size = fs.fstatSync(fd).size
          data = Buffer.alloc(Math.max(0, size - file.position))
          let read = 0
          while (read < data.length) {
            const n = fs.readSync(fd, data, read, data.length - read, file.position + read)
            if (n === 0) break
            read += n
          }
          data = data.subarray(0, read)
        } finally {
          fs.closeSync(fd)
        }
      } catch {
        continue
      }
      file.position += data.length
      const text = file.partial + data.toString('latin1')
      const end = text.lastIndexOf('\n')
      file.partial = end < 0 ? text : text.slice(end + 1)
      if (end >= 0) for (const line of text.slice(0, end).split('\n')) this.#add(line, member.index)
      if (member.exit !== undefined && file.partial !== '') {
        this.tornLines++
        file.partial = ''
      }
    }
  }

  #add (line: string, by: number): void {
    const fields = line.split(' ')
    const numbers = fields.slice(1).map(Number)
    const partition = numbers[0]
    if (!numbers.every(Number.isSafeInteger) || partition < 0 || partition >= this.processed.length ||
      !((fields[0] === 'A' && numbers.length === 4) || (fields[0] === 'P' && numbers.length === 3))) {
      if (this.badLines.length < 10) this.badLines.push(line)
      return
    }
    if (fields[0] === 'P') {
      const [, offset, deliveryCount] = numbers
      const list = this.processed[partition].get(offset)
      if (list === undefined) {
        this.processed[partition].set(offset, [{ deliveryCount, by }])
        this.distinct++
      } else {
        list.push({ deliveryCount, by })
      }
      return
    }
    const [, first, last, deliveryCount] = numbers
    const map = this.acquired[partition]
    for (let offset = first; offset <= last; offset++) {
      const list = map.get(offset)
      if (list === undefined) map.set(offset, [{ deliveryCount, by }])
      else list.push({ deliveryCount, by })
    }
  }
}
