/**
 * Delegation tokens (KIP-48): created by a SASL-authenticated (non-token) principal, then
 * used with SCRAM (`username` = token id, `password` = base64 of the HMAC, `tokenauth`).
 * The broker needs delegation.token.secret.key; on PLAINTEXT or a token-authenticated
 * connection it answers DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.
 */
import { CreateDelegationToken } from '../protocol/apis/create-delegation-token'
import { DescribeDelegationToken } from '../protocol/apis/describe-delegation-token'
import { ExpireDelegationToken } from '../protocol/apis/expire-delegation-token'
import { RenewDelegationToken } from '../protocol/apis/renew-delegation-token'
import { throwIf, type AdminCallOptions, type Router } from './route'

/** A delegation token: its id and HMAC (the SCRAM username and password of a client that authenticates with it), owner, renewers and lifetimes. */
export interface DelegationToken {
  /** The token's id: the SCRAM username of a client that authenticates with it. */
  tokenId: string
  /** The token's HMAC: its base64 is the SCRAM password of a client that authenticates with it. */
  hmac: Buffer
  /** E.g. 'User:alice'. */
  owner: string
  /** Who asked for it (differs from the owner when created on someone's behalf). */
  requester: string
  /** When it was issued, in ms since the epoch. */
  issueTimestamp: bigint
  /** When it expires unless renewed, in ms since the epoch. */
  expiryTimestamp: bigint
  /** When it expires at the latest, renewals included, in ms since the epoch. */
  maxTimestamp: bigint
  /** The principals that may renew it, e.g. 'User:bob'. */
  renewers: string[]
}

function principal (p: string): { principalType: string, principalName: string } {
  const colon = p.indexOf(':')
  if (colon <= 0) throw new TypeError(`A principal is 'Type:name' (e.g. 'User:alice'), got ${JSON.stringify(p)}`)
  return { principalType: p.slice(0, colon), principalName: p.slice(colon + 1) }
}

export async function createDelegationToken (router: Router, options: AdminCallOptions & { renewers?: string[], maxLifetimeMs?: number, owner?: string } = {}): Promise<DelegationToken> {
  const deadline = router.deadline('createDelegationToken', options, ['renewers', 'maxLifetimeMs', 'owner'])
  const owner = options.owner === undefined ? undefined : principal(options.owner)
  const response = await router.any(CreateDelegationToken, {
    ownerPrincipalType: owner?.principalType ?? null,
    ownerPrincipalName: owner?.principalName ?? null,
    renewers: (options.renewers ?? []).map(principal),
    maxLifetimeMs: BigInt(options.maxLifetimeMs ?? -1)
  }, deadline, options.signal)
  throwIf(response.errorCode, 'Creating a delegation token')
  return {
    tokenId: response.tokenId,
    hmac: response.hmac,
    owner: `${response.principalType}:${response.principalName}`,
    requester: response.tokenRequesterPrincipalName !== '' ? `${response.tokenRequesterPrincipalType}:${response.tokenRequesterPrincipalName}` : `${response.principalType}:${response.principalName}`,
    issueTimestamp: response.issueTimestampMs,
    expiryTimestamp: response.expiryTimestampMs,
    maxTimestamp: response.maxTimestampMs,
    renewers: options.renewers ?? []
  }
}

/** Extends a token's expiry by `renewPeriodMs` (-1: the broker's default); returns the new expiry. */
export async function renewDelegationToken (router: Router, hmac: Buffer, options: AdminCallOptions & { renewPeriodMs?: number } = {}): Promise<bigint> {
  const deadline = router.deadline('renewDelegationToken', options, ['renewPeriodMs'])
  const response = await router.any(RenewDelegationToken, { hmac, renewPeriodMs: BigInt(options.renewPeriodMs ?? -1) }, deadline, options.signal)
  throwIf(response.errorCode, 'Renewing a delegation token')
  return response.expiryTimestampMs
}

/** Moves a token's expiry to now + `expiryPeriodMs` (default -1: expire it now); returns the new expiry. */
export async function expireDelegationToken (router: Router, hmac: Buffer, options: AdminCallOptions & { expiryPeriodMs?: number } = {}): Promise<bigint> {
  const deadline = router.deadline('expireDelegationToken', options, ['expiryPeriodMs'])
  const response = await router.any(ExpireDelegationToken, { hmac, expiryTimePeriodMs: BigInt(options.expiryPeriodMs ?? -1) }, deadline, options.signal)
  throwIf(response.errorCode, 'Expiring a delegation token')
  return response.expiryTimestampMs
}

/** Tokens of `owners` (e.g. ['User:alice']), or every token the caller may describe. */
export async function describeDelegationTokens (router: Router, options: AdminCallOptions & { owners?: string[] } = {}): Promise<DelegationToken[]> {
  const deadline = router.deadline('describeDelegationTokens', options, ['owners'])
  const response = await router.any(DescribeDelegationToken, { owners: options.owners === undefined ? null : options.owners.map(principal) }, deadline, options.signal)
  throwIf(response.errorCode, 'Describing delegation tokens')
  return response.tokens.map(t => ({
    tokenId: t.tokenId,
    hmac: t.hmac,
    owner: `${t.principalType}:${t.principalName}`,
    requester: t.tokenRequesterPrincipalName !== '' ? `${t.tokenRequesterPrincipalType}:${t.tokenRequesterPrincipalName}` : `${t.principalType}:${t.principalName}`,
    issueTimestamp: t.issueTimestamp,
    expiryTimestamp: t.expiryTimestamp,
    maxTimestamp: t.maxTimestamp,
    renewers: t.renewers.map(r => `${r.principalType}:${r.principalName}`)
  }))
}
