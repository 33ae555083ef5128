/**
 * Client quotas (KIP-546) of user, client-id and ip entities: describe with filters and
 * alter (set or remove keys such as producer_byte_rate, consumer_byte_rate,
 * request_percentage, controller_mutation_rate, connection_creation_rate).
 */
import { AlterClientQuotas } from '../protocol/apis/alter-client-quotas'
import { DescribeClientQuotas } from '../protocol/apis/describe-client-quotas'
import type { BrokerError } from '../protocol/errors'
import { checkOneOf } from '../client/validate'
import { itemError, throwIf, type AdminCallOptions, type Router } from './route'

/** The kinds of entity a client quota applies to: a user principal, a client id, or a client's IP address. */
export type QuotaEntityType = 'user' | 'client-id' | 'ip'

/** Entity type → name; a null name is the default entity of that type. */
export type QuotaEntity = Partial<Record<QuotaEntityType, string | null>>

/** `match`: a name (exactly that entity), null (the default entity), or undefined (any entity of the type). */
export interface QuotaFilterComponent {
  /** The entity type this component filters on. */
  entityType: QuotaEntityType
  /** A name (exactly that entity), null (the default entity) or left out (any entity of the type). */
  match?: string | null
}

/** The quotas of one entity (user, client id or ip), as `describeClientQuotas` answers them. */
export interface QuotaEntry {
  /** The entity: entity type → name (null for the default entity). */
  entity: QuotaEntity
  /** Quota key → value, e.g. producer_byte_rate (bytes per second) or request_percentage. */
  values: Record<string, number>
}

const ENTITY_TYPES: QuotaEntityType[] = ['user', 'client-id', 'ip']

export async function describeClientQuotas (router: Router, components: QuotaFilterComponent[] = [], options: AdminCallOptions & { strict?: boolean } = {}): Promise<QuotaEntry[]> {
  const deadline = router.deadline('describeClientQuotas', options, ['strict'])
  for (const c of components) checkOneOf('describeClientQuotas', 'entityType', c.entityType, ENTITY_TYPES)
  const response = await router.any(DescribeClientQuotas, {
    components: components.map(c => ({
      entityType: c.entityType,
      // 0: exactly this name, 1: the default entity, 2: any entity of the type.
      matchType: c.match === undefined ? 2 : c.match === null ? 1 : 0,
      match: c.match ?? null
    })),
    strict: options.strict ?? false
  }, deadline, options.signal)
  throwIf(response.errorCode, 'Describing client quotas', response.errorMessage)
  return (response.entries ?? []).map(e => ({
    entity: Object.fromEntries(e.entity.map(c => [c.entityType, c.entityName])),
    values: Object.fromEntries(e.values.map(v => [v.key, v.value]))
  }))
}

/** One entity's quota changes, for `admin.alterClientQuotas()`. */
export interface QuotaAlteration {
  /** The entity: entity type → name (null for the default entity). */
  entity: QuotaEntity
  /** Quota keys to set. */
  set?: Record<string, number>
  /** Quota keys to remove. */
  remove?: string[]
}

export async function alterClientQuotas (router: Router, alterations: QuotaAlteration[], options: AdminCallOptions & { validateOnly?: boolean } = {}): Promise<Array<{ entity: QuotaEntity, error?: BrokerError }>> {
  const deadline = router.deadline('alterClientQuotas', options, ['validateOnly'])
  for (const a of alterations) for (const type of Object.keys(a.entity)) checkOneOf('alterClientQuotas', 'entity type', type, ENTITY_TYPES)
  const response = await router.any(AlterClientQuotas, {
    entries: alterations.map(a => ({
      entity: Object.entries(a.entity).map(([entityType, entityName]) => ({ entityType, entityName: entityName ?? null })),
      ops: [
        ...Object.entries(a.set ?? {}).map(([key, value]) => ({ key, value, remove: false })),
        ...(a.remove ?? []).map(key => ({ key, value: 0, remove: true }))
      ]
    })),
    validateOnly: options.validateOnly ?? false
  }, deadline, options.signal)
  return alterations.map((a, i) => {
    const result = response.entries[i]
    return { entity: a.entity, error: itemError(result?.errorCode ?? -1, `Altering quotas of ${JSON.stringify(a.entity)}`, result?.errorMessage) }
  })
}
