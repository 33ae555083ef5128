/**
 * Serializers and deserializers: typed keys and values at the API boundary of the producer
 * (`serializers`) and the consumer (`deserializers`). The shape is the one a schema-registry
 * package implements (Java's Serializer/Deserializer, topic first):
 *
 *   serialize (topic, data)             → bytes | string | null, or a promise of one
 *   deserialize (topic, bytes, headers) → T, or a promise of one
 *
 * A serializer that answers synchronously keeps send() synchronous up to the buffer (the
 * records are buffered before it returns); a promise (a registry lookup) is awaited, for
 * every record of the call at once, before anything is buffered. Null keys and values
 * (tombstones) are passed through without calling them. Without serializers nothing here
 * runs: the producer and consumer check one field per call, not per record.
 */
import { ErrorKind, KafkaTsError } from '../protocol/errors'
import type { KafkaRecord, RecordHeader } from '../protocol/record-batch'
import { checkObject, checkKnownKeys, describeValue } from './validate'

/** What a serializer may return: bytes, a string (written as UTF-8), or null. */
export type SerializedBytes = Buffer | Uint8Array | string

/** Turns a typed key or value into bytes before it is buffered (`serializers` of a producer). Not called for null keys and values (tombstones). */
export interface Serializer<T> {
  /** The bytes of `data`, a key or value to be written to `topic` (a string is written as UTF-8); may return a promise. */
  serialize: (topic: string, data: T) => SerializedBytes | null | Promise<SerializedBytes | null>
}

/** Turns a fetched key or value into a typed one before the application sees it (`deserializers` of a consumer). Not called for null keys and values. */
export interface Deserializer<T> {
  /** Not called for a null key or value (a tombstone): that stays null. */
  deserialize: (topic: string, data: Buffer, headers: RecordHeader[]) => T | Promise<T>
}

/** A producer's `serializers` option: one for keys, one for values (either may be left out: bytes or strings then). */
export interface Serializers<K, V> {
  /** Serializes keys; without it, keys must be bytes or strings. */
  key?: Serializer<K>
  /** Serializes values; without it, values must be bytes or strings. */
  value?: Serializer<V>
}

/** A consumer's `deserializers` option: one for keys, one for values (either may be left out: Buffers then). */
export interface Deserializers<K, V> {
  /** Deserializes keys; without it, keys are Buffers. */
  key?: Deserializer<K>
  /** Deserializes values; without it, values are Buffers. */
  value?: Deserializer<V>
}

/** A record as the consumer hands it out: key and value as the deserializers made them (Buffer without). */
export interface ConsumerRecord<K = Buffer, V = Buffer> extends Omit<KafkaRecord, 'key' | 'value'> {
  /** The key as the key deserializer made it (a Buffer without one); null when the record has none. */
  key: K | null
  /** The value as the value deserializer made it (a Buffer without one); null for a tombstone. */
  value: V | null
}

/** A serializer or deserializer threw (or rejected): which topic, which part, and for a consumer which record. */
export class SerializationError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.SerializationError')
  /** The topic of the record being (de)serialized. */
  readonly topic: string
  /** Which part of the record failed: its key or its value. */
  readonly part: 'key' | 'value'
  /** The record's partition and offset (deserialization only). */
  readonly partition: number | undefined
  /** The record's offset (deserialization only; undefined when serializing). */
  readonly offset: bigint | undefined

  /** The error for a failed `part` of a record of `topic`; `cause` is what the serializer threw. */
  constructor (message: string, details: { topic: string, part: 'key' | 'value', partition?: number, offset?: bigint, cause: unknown }) {
    super(ErrorKind.SERIALIZATION, message, { cause: details.cause })
    this.topic = details.topic
    this.part = details.part
    this.partition = details.partition
    this.offset = details.offset
  }
}

const utf8 = new TextDecoder()

/** The built-in serializers: UTF-8 strings and JSON. */
export const serializers = {
  /** Writes strings as UTF-8. */
  string: (): Serializer<string> => ({ serialize: (_topic, data) => data }),
  /** Writes any value as its JSON text (JSON.stringify), UTF-8. */
  json: <T = unknown>(): Serializer<T> => ({ serialize: (_topic, data) => JSON.stringify(data) })
}

/** The built-in deserializers: UTF-8 strings and JSON. */
export const deserializers = {
  /** Reads the bytes as a UTF-8 string. */
  string: (): Deserializer<string> => ({ deserialize: (_topic, data) => utf8.decode(data) }),
  /** Parses the bytes as UTF-8 JSON text (JSON.parse); the type `T` is not checked. */
  json: <T = unknown>(): Deserializer<T> => ({ deserialize: (_topic, data) => JSON.parse(utf8.decode(data)) as T })
}

const isPromise = (value: unknown): value is Promise<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'

/**
 * The `{ key, value }` option (`serializers` or `deserializers`) checked and handed to `make`;
 * undefined when it names neither (nothing to do per record).
 */
function fromOption<C, T> (where: string, name: 'serializers' | 'deserializers', pair: unknown, make: (pair: { key?: C, value?: C }) => T): T | undefined {
  if (pair === undefined) return undefined
  const method = name === 'serializers' ? 'serialize' : 'deserialize'
  checkObject(where, name, pair)
  checkKnownKeys(`${where} ${name}`, pair, ['key', 'value'])
  for (const part of ['key', 'value'] as const) {
    const s = pair[part]
    if (s === undefined) continue
    if (s === null || typeof s !== 'object' || typeof (s as Record<string, unknown>)[method] !== 'function') {
      throw new TypeError(`${where} ${name}.${part}: expected an object with a ${method}(topic, data) method (e.g. ${name}.${part === 'key' ? 'string' : 'json'}()), got ${describeValue(s)}`)
    }
  }
  return pair.key === undefined && pair.value === undefined ? undefined : make(pair as { key?: C, value?: C })
}

/** What RecordSerializer and RecordDeserializer hold: the key's and the value's (de)serializer, either may be absent. */
abstract class KeyValueCoders<C> {
  protected readonly key: C | undefined
  protected readonly value: C | undefined

  /** Only through `from` (each subclass's), which checks the option first. */
  protected constructor (pair: { key?: C, value?: C }) {
    this.key = pair.key
    this.value = pair.value
  }
}

interface RecordFields { topic: string, key?: unknown, value: unknown }

/**
 * The producer's serializers: turn records with typed keys/values into records of bytes,
 * synchronously when every serializer answered synchronously.
 */
export class RecordSerializer extends KeyValueCoders<Serializer<unknown>> {
  /** Undefined when no serializer is given (the producer then skips this step). */
  static from (where: string, pair: unknown): RecordSerializer | undefined {
    return fromOption(where, 'serializers', pair, (checked: Serializers<unknown, unknown>) => new RecordSerializer(checked))
  }

  /** A copy of each record with its key and value serialized; a promise if a serializer returned one. */
  records<R extends RecordFields> (input: R | R[]): R | R[] | Promise<R | R[]> {
    if (!Array.isArray(input)) return this.record(input)
    const out = new Array<R | Promise<R>>(input.length)
    let pending = false
    for (let i = 0; i < input.length; i++) {
      const r = this.record(input[i])
      if (isPromise(r)) pending = true
      out[i] = r
    }
    return pending ? Promise.all(out) : out as R[]
  }

  /** produce(): one record, synchronously (it has no promise to wait on). */
  recordNow<R extends RecordFields> (record: R): R {
    const out = this.record(record)
    if (isPromise(out)) {
      out.catch(() => {}) // the TypeError below is the answer
      throw new TypeError(`produce() record: a serializer returned a promise; produce() takes synchronous serializers only, use send() with asynchronous ones (a schema registry lookup)`)
    }
    return out
  }

  /** One record; throws SerializationError, or returns a promise that rejects with one. */
  record<R extends RecordFields> (record: R): R | Promise<R> {
    // Not an object: the producer's record check names what is wrong.
    if (record === null || typeof record !== 'object') return record
    const key = this.key === undefined || record.key === undefined || record.key === null ? record.key : this.#apply(this.key, 'key', record)
    const value = this.value === undefined || record.value === null || record.value === undefined ? record.value : this.#apply(this.value, 'value', record)
    if (isPromise(key) || isPromise(value)) {
      return Promise.all([key, value]).then(([k, v]) => ({ ...record, key: k, value: v }))
    }
    return { ...record, key, value }
  }

  #apply (serializer: Serializer<unknown>, part: 'key' | 'value', record: RecordFields): unknown {
    const fail = (cause: unknown): never => {
      throw new SerializationError(`The ${part} serializer failed for a record of topic ${record.topic}: ${(cause as Error)?.message ?? String(cause)}`, { topic: record.topic, part, cause })
    }
    try {
      const out = serializer.serialize(record.topic, record[part])
      return isPromise(out) ? out.then(undefined, fail) : out
    } catch (error) {
      return fail(error)
    }
  }
}

/**
 * The consumer's deserializers: replace each record of a batch handed out by one with its key
 * and value deserialized (in place in the batch's array, which belongs to that batch).
 * Returns undefined when done synchronously, else a promise.
 */
export class RecordDeserializer extends KeyValueCoders<Deserializer<unknown>> {
  /** Undefined when no deserializer is given (the consumer then skips this step). */
  static from (where: string, pair: unknown): RecordDeserializer | undefined {
    return fromOption(where, 'deserializers', pair, (checked: Deserializers<unknown, unknown>) => new RecordDeserializer(checked))
  }

  batch (topic: string, partition: number, records: Array<KafkaRecord | ConsumerRecord<unknown, unknown>>): Promise<void> | undefined {
    let pending: Array<Promise<void>> | undefined
    for (let i = 0; i < records.length; i++) {
      const record = records[i] as KafkaRecord
      const key = this.key === undefined || record.key === null ? record.key : this.#apply(this.key, 'key', topic, partition, record)
      const value = this.value === undefined || record.value === null ? record.value : this.#apply(this.value, 'value', topic, partition, record)
      if (isPromise(key) || isPromise(value)) {
        (pending ??= []).push(Promise.all([key, value]).then(([k, v]) => {
          records[i] = { offset: record.offset, timestamp: record.timestamp, key: k, value: v, headers: record.headers }
        }))
      } else {
        records[i] = { offset: record.offset, timestamp: record.timestamp, key, value, headers: record.headers }
      }
    }
    return pending === undefined ? undefined : Promise.all(pending).then(() => undefined)
  }

  #apply (deserializer: Deserializer<unknown>, part: 'key' | 'value', topic: string, partition: number, record: KafkaRecord): unknown {
    const fail = (cause: unknown): never => {
      throw new SerializationError(`The ${part} deserializer failed for ${topic} partition ${partition} offset ${record.offset}: ${(cause as Error)?.message ?? String(cause)}; the consumer stops here (seek past the record to skip it)`, { topic, part, partition, offset: record.offset, cause })
    }
    try {
      const out = deserializer.deserialize(topic, record[part]!, record.headers)
      return isPromise(out) ? out.then(undefined, fail) : out
    } catch (error) {
      return fail(error)
    }
  }
}
