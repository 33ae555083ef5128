/**
 * The message schema: each API file describes its request and response once, field by
 * field with the versions each field exists in (as Kafka's message JSON does), and this
 * module turns that description into an encoder and a decoder per version.
 *
 * Flexible versions (KIP-482) switch strings, bytes and arrays to their compact forms and
 * end every struct with a tagged-field section. Tagged fields are written only when they
 * differ from their default; unknown tags are kept on decode and written back on encode.
 *
 * Hot paths (the Produce request, the Fetch response) have hand-written codecs in their
 * API files; the schema still describes them, and tests check both agree byte for byte.
 */
import { ProtocolError } from './errors'
import { Reader } from './reader'
import { Writer } from './writer'

/** The types a field can have besides structs and arrays: Kafka's primitive types ('records' is a record-batch byte section). */
export type Primitive = 'int8' | 'int16' | 'int32' | 'int64' | 'uint16' | 'uint32' | 'float64' | 'bool' | 'uuid' | 'string' | 'bytes' | 'records'

/** A struct: its fields, in wire order. */
export interface StructType {
  /** Always 'struct'. */
  readonly kind: 'struct'
  /** The fields, in wire order. */
  readonly fields: readonly FieldSpec[]
}
/** An array of a primitive or a struct. */
export interface ArrayType {
  /** Always 'array'. */
  readonly kind: 'array'
  /** The type of its elements. */
  readonly of: Primitive | StructType
}
/** A field's type: a primitive, a struct or an array. */
export type FieldType = Primitive | StructType | ArrayType

/**
 * Versions as Kafka's JSON writes them: '3+' (3 and later), '3-5', '3' or 'none'.
 */
export type VersionRange = string

/** One field of a message schema, as Kafka's message JSON describes it. */
export interface FieldSpec {
  /** The field's name in the decoded object (camelCase). */
  readonly name: string
  /** The field's type. */
  readonly type: FieldType
  /** The versions the field exists in. */
  readonly versions: VersionRange
  /** The versions in which it may be null; never by default. */
  readonly nullableVersions?: VersionRange
  /** For tagged fields: the versions it may appear in, and its tag. */
  readonly taggedVersions?: VersionRange
  /** For tagged fields: its tag number. */
  readonly tag?: number
  /** The value when the field is absent from a version (else the type's zero value). */
  readonly default?: unknown
}

export function field (name: string, type: FieldType, versions: VersionRange, options: Partial<Omit<FieldSpec, 'name' | 'type' | 'versions'>> = {}): FieldSpec {
  return { name, type, versions, ...options }
}

/** A tagged field: present in `taggedVersions` with tag `tag` (versions default to the same range). */
export function tagged (name: string, type: FieldType, tag: number, taggedVersions: VersionRange, options: Partial<Omit<FieldSpec, 'name' | 'type' | 'tag' | 'taggedVersions'>> = {}): FieldSpec {
  return { name, type, tag, taggedVersions, versions: taggedVersions, ...options }
}

export function struct (...fields: FieldSpec[]): StructType {
  return { kind: 'struct', fields }
}

export function array (of: Primitive | StructType): ArrayType {
  return { kind: 'array', of }
}

/** Whether `version` falls in a Kafka-style version range. */
export function inRange (range: VersionRange | undefined, version: number): boolean {
  if (range === undefined || range === 'none') return false
  if (range.endsWith('+')) return version >= Number(range.slice(0, -1))
  const dash = range.indexOf('-')
  if (dash === -1) return version === Number(range)
  return version >= Number(range.slice(0, dash)) && version <= Number(range.slice(dash + 1))
}

/** Tagged fields seen on decode whose tag this version of kafkats does not know. */
export const kUnknownTags = '_unknownTaggedFields'

type Encode = (w: Writer, value: any) => void
type Decode = (r: Reader) => any

interface CompiledStruct {
  encode: Encode
  decode: Decode
}

interface FieldPlan {
  spec: FieldSpec
  encode: Encode
  decode: Decode
  nullable: boolean
}

function zeroOf (type: FieldType): unknown {
  if (typeof type === 'string') {
    switch (type) {
      case 'int64': return 0n
      case 'bool': return false
      case 'string': return ''
      case 'uuid': return '00000000-0000-0000-0000-000000000000'
      case 'bytes': return Buffer.alloc(0)
      case 'records': return null
      default: return 0
    }
  }
  if (type.kind === 'array') return []
  return defaultStruct(type)
}

/** The value a field has when a version does not carry it. */
export function defaultOf (spec: FieldSpec): unknown {
  if (spec.default !== undefined) return spec.default
  return zeroOf(spec.type)
}

/** An object with every field of `type` at its default. */
export function defaultStruct (type: StructType): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  for (const spec of type.fields) value[spec.name] = defaultOf(spec)
  return value
}

function isDefault (spec: FieldSpec, value: unknown): boolean {
  if (value === undefined) return true
  const dflt = defaultOf(spec)
  if (value === null || dflt === null) return value === dflt
  if (Array.isArray(value)) return value.length === 0 && Array.isArray(dflt)
  if (Buffer.isBuffer(value)) return Buffer.isBuffer(dflt) && value.equals(dflt)
  if (typeof spec.type === 'object' && spec.type.kind === 'struct') {
    return spec.type.fields.every(sub => isDefault(sub, (value as Record<string, unknown>)[sub.name]))
  }
  return value === dflt
}

function primitiveEncoder (type: Primitive, flexible: boolean, nullable: boolean, name: string): Encode {
  switch (type) {
    case 'int8': return (w, v) => w.int8(v ?? 0)
    case 'int16': return (w, v) => w.int16(v ?? 0)
    case 'int32': return (w, v) => w.int32(v ?? 0)
    case 'int64': return (w, v) => w.int64(v ?? 0n)
    case 'uint16': return (w, v) => w.uint16(v ?? 0)
    case 'uint32': return (w, v) => w.uint32(v ?? 0)
    case 'float64': return (w, v) => w.float64(v ?? 0)
    case 'bool': return (w, v) => w.bool(v === true)
    case 'uuid': return (w, v) => w.uuid(v ?? '00000000-0000-0000-0000-000000000000')
    case 'string': {
      const put = (w: Writer, v: string | null): void => { if (flexible) w.compactString(v); else w.string(v) }
      if (nullable) return (w, v) => put(w, v ?? null)
      return (w, v) => {
        if (v === null) throw new TypeError(`Field ${name} is not nullable in this version`)
        put(w, v ?? '')
      }
    }
    case 'bytes':
    case 'records': {
      const put = (w: Writer, v: Uint8Array | null): void => { if (flexible) w.compactBytes(v); else w.bytes(v) }
      if (nullable) return (w, v) => put(w, v ?? null)
      return (w, v) => {
        if (v === null) throw new TypeError(`Field ${name} is not nullable in this version`)
        put(w, v ?? Buffer.alloc(0))
      }
    }
  }
}

function primitiveDecoder (type: Primitive, flexible: boolean, nullable: boolean): Decode {
  switch (type) {
    case 'int8': return r => r.int8()
    case 'int16': return r => r.int16()
    case 'int32': return r => r.int32()
    case 'int64': return r => r.int64()
    case 'uint16': return r => r.uint16()
    case 'uint32': return r => r.uint32()
    case 'float64': return r => r.float64()
    case 'bool': return r => r.bool()
    case 'uuid': return r => r.uuid()
    case 'string':
      if (flexible) return nullable ? r => r.compactNullableString() : r => r.compactString()
      return nullable ? r => r.nullableString() : r => r.string()
    case 'bytes':
    case 'records':
      if (flexible) return nullable ? r => r.compactNullableBytes() : r => r.compactBytes()
      return nullable ? r => r.nullableBytes() : r => r.bytes()
  }
}

/** Smallest number of bytes one element of `type` takes on the wire (bounds array counts). */
function minSize (type: Primitive | StructType, version: number, flexible: boolean): number {
  if (typeof type === 'string') {
    switch (type) {
      case 'int8': case 'bool': return 1
      case 'int16': case 'uint16': return 2
      case 'int32': case 'uint32': return 4
      case 'int64': case 'float64': return 8
      case 'uuid': return 16
      case 'string': return flexible ? 1 : 2
      case 'bytes': case 'records': return flexible ? 1 : 4
    }
  }
  let size = flexible ? 1 : 0
  for (const spec of type.fields) {
    if (spec.taggedVersions !== undefined || !inRange(spec.versions, version)) continue
    const t = spec.type
    if (typeof t === 'object' && t.kind === 'array') size += flexible ? 1 : 4
    // A null struct is its one-byte marker alone.
    else if (typeof t === 'object' && inRange(spec.nullableVersions, version)) size += 1
    else size += minSize(t, version, flexible)
  }
  return size
}

function typeCodec (type: FieldType, version: number, flexible: boolean, nullable: boolean, name: string): { encode: Encode, decode: Decode } {
  if (typeof type === 'string') {
    return { encode: primitiveEncoder(type, flexible, nullable, name), decode: primitiveDecoder(type, flexible, nullable) }
  }
  if (type.kind === 'struct') {
    const inner = compileStruct(type, version, flexible)
    if (!nullable) return inner
    // A nullable struct is preceded by an int8: -1 for null, 1 for present.
    return {
      encode: (w, v) => { if (v === null || v === undefined) { w.int8(-1) } else { w.int8(1); inner.encode(w, v) } },
      decode: r => r.int8() < 0 ? null : inner.decode(r)
    }
  }
  const element = typeCodec(type.of, version, flexible, false, name)
  const elementMin = minSize(type.of, version, flexible)
  return {
    encode: (w, v: unknown[] | null | undefined) => {
      if (v === null || v === undefined) {
        if (v === null && !nullable) throw new TypeError(`Array ${name} is not nullable in this version`)
        if (v === null) { if (flexible) w.uvarint(0); else w.int32(-1); return }
        v = []
      }
      if (flexible) w.uvarint(v.length + 1); else w.int32(v.length)
      for (let i = 0; i < v.length; i++) element.encode(w, v[i])
    },
    decode: r => {
      const at = r.offset
      const count = r.arrayLength(flexible, elementMin)
      if (count < 0) {
        if (!nullable) throw new ProtocolError(`Null array for non-nullable field ${name} at offset ${at}`)
        return null
      }
      const items = new Array(count)
      for (let i = 0; i < count; i++) items[i] = element.decode(r)
      return items
    }
  }
}

const compiled = new WeakMap<StructType, Map<string, CompiledStruct>>()

/** The encoder and decoder of a struct at one version (cached). */
export function compileStruct (type: StructType, version: number, flexible: boolean): CompiledStruct {
  let byVersion = compiled.get(type)
  if (byVersion === undefined) compiled.set(type, byVersion = new Map())
  const key = `${version}${flexible ? 'f' : ''}`
  let result = byVersion.get(key)
  if (result !== undefined) return result
  // Placeholder first so recursive types do not loop while compiling.
  const lazy: CompiledStruct = { encode: (w, v) => result!.encode(w, v), decode: r => result!.decode(r) }
  byVersion.set(key, lazy)

  const regular: FieldPlan[] = []
  const taggedPlans = new Map<number, FieldPlan>()
  const absent: FieldSpec[] = []
  for (const spec of type.fields) {
    const nullable = inRange(spec.nullableVersions, version)
    const isTagged = spec.taggedVersions !== undefined && inRange(spec.taggedVersions, version)
    if (isTagged && flexible) {
      const codec = typeCodec(spec.type, version, flexible, nullable, spec.name)
      taggedPlans.set(spec.tag!, { spec, nullable, ...codec })
    } else if (spec.taggedVersions === undefined && inRange(spec.versions, version)) {
      const codec = typeCodec(spec.type, version, flexible, nullable, spec.name)
      regular.push({ spec, nullable, ...codec })
    } else {
      absent.push(spec)
    }
  }
  const tagOrder = [...taggedPlans.keys()].sort((a, b) => a - b)

  const encode: Encode = (w, value) => {
    const obj = (value ?? {}) as Record<string, unknown>
    for (let i = 0; i < regular.length; i++) {
      const plan = regular[i]
      const v = obj[plan.spec.name]
      plan.encode(w, v === undefined ? defaultOf(plan.spec) : v)
    }
    if (!flexible) return
    const unknown = obj[kUnknownTags] as Array<{ tag: number, data: Buffer }> | undefined
    const present: Array<{ tag: number, write: (w: Writer) => void }> = []
    for (const tag of tagOrder) {
      const plan = taggedPlans.get(tag)!
      const v = obj[plan.spec.name]
      if (!isDefault(plan.spec, v)) present.push({ tag, write: sub => plan.encode(sub, v) })
    }
    if (unknown !== undefined) {
      for (const { tag, data } of unknown) present.push({ tag, write: sub => sub.raw(data) })
      present.sort((a, b) => a.tag - b.tag)
    }
    w.uvarint(present.length)
    for (const { tag, write } of present) {
      const sub = new Writer(64)
      write(sub)
      w.uvarint(tag).uvarint(sub.offset).raw(sub.finish())
    }
  }

  const decode: Decode = r => {
    const obj: Record<string, unknown> = {}
    for (let i = 0; i < regular.length; i++) obj[regular[i].spec.name] = regular[i].decode(r)
    for (let i = 0; i < absent.length; i++) obj[absent[i].name] = defaultOf(absent[i])
    if (flexible) {
      for (const plan of taggedPlans.values()) obj[plan.spec.name] = defaultOf(plan.spec)
      const count = r.uvarint()
      if (count > r.remaining) throw new ProtocolError(`Tagged field count ${count} exceeds the ${r.remaining} bytes that remain`)
      let unknown: Array<{ tag: number, data: Buffer }> | undefined
      for (let i = 0; i < count; i++) {
        const tag = r.uvarint()
        const size = r.uvarint()
        const sub = r.slice(size, `tagged field ${tag}`)
        const plan = taggedPlans.get(tag)
        if (plan === undefined) {
          (unknown ??= []).push({ tag, data: sub.raw(size) })
          continue
        }
        obj[plan.spec.name] = plan.decode(sub)
        if (sub.remaining !== 0) throw new ProtocolError(`Tagged field ${tag} (${plan.spec.name}) has ${sub.remaining} bytes left over`)
      }
      if (unknown !== undefined) obj[kUnknownTags] = unknown
    }
    return obj
  }

  result = { encode, decode }
  byVersion.set(key, result)
  return result
}

/** Renders a struct at one version the way Kafka's Java `Schema.toString` lays it out (for conformance tests). */
export function describeStruct (type: StructType, version: number, flexible: boolean): string {
  const parts: string[] = []
  const tags: string[] = []
  for (const spec of type.fields) {
    const nullable = inRange(spec.nullableVersions, version)
    if (spec.taggedVersions !== undefined) {
      if (flexible && inRange(spec.taggedVersions, version)) tags.push(`tag${spec.tag!} ${snake(spec.name)}:${describeType(spec.type, version, flexible, nullable)}; `)
    } else if (inRange(spec.versions, version)) {
      parts.push(`${snake(spec.name)}:${describeType(spec.type, version, flexible, nullable)}`)
    }
  }
  if (flexible) {
    tags.sort((a, b) => Number(a.slice(3, a.indexOf(' '))) - Number(b.slice(3, b.indexOf(' '))))
    parts.push(`_tagged_fields:TAGS(${tags.join('')})`)
  }
  return `{${parts.join(', ')}}`
}

function describeType (type: FieldType, version: number, flexible: boolean, nullable: boolean): string {
  const prefix = (flexible ? 'COMPACT_' : '') + (nullable ? 'NULLABLE_' : '')
  if (typeof type === 'string') {
    switch (type) {
      case 'int8': case 'int16': case 'int32': case 'int64': case 'uint16': case 'float64': case 'uuid': return type.toUpperCase()
      case 'uint32': return 'UNSIGNED_INT32'
      case 'bool': return 'BOOLEAN'
      case 'string': return `${prefix}STRING`
      case 'bytes': return `${prefix}BYTES`
      case 'records': return `${prefix}RECORDS`
    }
  }
  if (type.kind === 'struct') return describeStruct(type, version, flexible)
  return `${prefix}ARRAY(${describeType(type.of, version, flexible, false)})`
}

function snake (name: string): string {
  return name.replace(/[A-Z]/g, c => `_${c.toLowerCase()}`)
}
