/** Small pieces the admin areas share: grouping by topic, leaders' answers by partition and input checks of partitions. */
import { checkInteger, checkObject, checkString } from '../client/validate'
import { tpKey, type TopicPartitionKey } from './route'

/** Items grouped by topic, in first-seen order. */
export function byTopic<P extends TopicPartitionKey> (items: Iterable<P>): Map<string, P[]> {
  const topics = new Map<string, P[]>()
  for (const item of items) {
    const list = topics.get(item.topic)
    if (list === undefined) topics.set(item.topic, [item])
    else list.push(item)
  }
  return topics
}

/**
 * A leader's answer as `Router.leaders` takes it: the error code of each partition (by
 * `tpKey`). `each` sees every partition's entry first, for what the call returns.
 */
export function partitionCodes<P extends { partitionIndex: number, errorCode: number }> (topics: ReadonlyArray<{ name: string, partitions: readonly P[] }>, each?: (key: string, topic: string, partition: P) => void): Map<string, number> {
  const codes = new Map<string, number>()
  for (const t of topics) {
    for (const p of t.partitions) {
      const key = tpKey(t.name, p.partitionIndex)
      codes.set(key, p.errorCode)
      each?.(key, t.name, p)
    }
  }
  return codes
}

export function checkPartitions (where: string, items: unknown): asserts items is TopicPartitionKey[] {
  if (!Array.isArray(items)) throw new TypeError(`${where}: expected an array of { topic, partition }, got ${typeof items}`)
  for (const [i, item] of items.entries()) {
    checkObject(where, `[${i}]`, item)
    checkString(where, `[${i}].topic`, item.topic)
    checkInteger(where, `[${i}].partition`, item.partition, { min: 0 })
  }
}

/** A two-way map between Kafka's numeric codes and kafkats's names for them. */
export function codeMap<Name extends string> (entries: Record<Name, number>): { code: (name: Name) => number, name: (code: number) => Name | 'unknown', names: Name[] } {
  const byCode = new Map<number, Name>()
  for (const [name, code] of Object.entries(entries) as Array<[Name, number]>) byCode.set(code, name)
  return {
    code: name => entries[name],
    name: code => byCode.get(code) ?? 'unknown',
    names: Object.keys(entries) as Name[]
  }
}
