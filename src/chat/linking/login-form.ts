import { clubSelectScreen, onClubSelect } from '../../../flows/screens/club-select.ts'
import { onComplete } from '../../../flows/screens/complete.ts'
import { onLoginOutcome, readLogin, type LoginOutcome } from '../../../flows/screens/login.ts'
import type { Club, FlowResponse } from '../../../flows/types.ts'
import type { Principal } from '../../auth/tokens.ts'
import { AppError } from '../../errors.ts'
import type { TenantStore } from '../../tenants/store.ts'
import type { FlowRequest } from './flow-request.ts'
import { LINKED_ACCOUNT_TTL_MS } from './linked-account-store.ts'
import type { LoginAttemptLimiter } from './login-attempts.ts'
import type { MemberLoginResult } from './member-login.ts'
import type { LinkedAccountStore, LoginFormInvites } from './types.ts'

// The login form's data endpoint: checks who may answer, does the I/O, and lets the pure screens decide.

export interface LoginFormDeps {
  tenants: TenantStore
  invites: LoginFormInvites
  accounts: LinkedAccountStore
  limiter: LoginAttemptLimiter
  login: (tenantId: string, email: string, password: string) => Promise<MemberLoginResult>
  /** The token kept for the bot's calls: the login's own lasts a day, a linked account lasts 7 (spec, Limits). */
  issueLinkToken: (principal: Principal, tenantId: string, ttlMs: number) => Promise<string>
  /** Tells the bot, without waiting for it; its failure does not undo the link. */
  linked: (phone: string) => void
  now: () => number
}

/** The provider must have verified its payload; a false flag is refused like a bad signature. */
export function requireValidSignature (signatureValid: boolean | undefined): void {
  if (signatureValid === false) throw new AppError('UNAUTHORIZED', 'The payload signature was not valid (signature_valid is false)')
}

export async function answerLoginForm (deps: LoginFormDeps, request: Extract<FlowRequest, { kind: 'exchange' }>): Promise<FlowResponse> {
  requireValidSignature(request.signatureValid)
  if (!await deps.invites.wasSent(request.phone)) {
    throw new AppError('FORBIDDEN', 'No login form was sent to this phone in the last hour: ask the bot for a new one')
  }
  const clubs: Club[] = (await deps.tenants.list()).map((t) => ({ id: t.id, name: t.name, locale: t.locale }))
  switch (request.action) {
    case 'INIT':
    case 'BACK':
      return clubSelectScreen(clubs)
    case 'COMPLETE':
      return onComplete(request.data)
    case 'DATA_EXCHANGE': {
      if (request.screen === 'CLUB_SELECT') return onClubSelect(request.data, clubs)
      const step = readLogin(request.data, clubs)
      if (step.kind === 'respond') return step.response
      return onLoginOutcome(step.club, await authenticate(deps, request.phone, step.club, step.email, step.password))
    }
  }
}

async function authenticate (deps: LoginFormDeps, phone: string, club: Club, email: string, password: string): Promise<LoginOutcome> {
  const who = { phone, email }
  const reservation = await deps.limiter.reserve(who)
  if (!reservation.allowed) return { kind: 'rate-limited', retryAfterMs: reservation.retryAfterMs }
  const result = await deps.login(club.id, email, password)
  if (result.kind !== 'ok') return result
  await deps.limiter.clear(who)
  const { principal } = result
  if (!principal.tenants.includes(club.id)) return { kind: 'not-member' }
  const now = deps.now()
  const name = principal.name ?? principal.email ?? email
  await deps.accounts.put(phone, {
    tenantId: club.id,
    tenantName: club.name,
    customerId: principal.sub,
    email: principal.email ?? email,
    name,
    role: principal.role,
    token: await deps.issueLinkToken(principal, club.id, LINKED_ACCOUNT_TTL_MS),
    linkedAt: now,
    expiresAt: now + LINKED_ACCOUNT_TTL_MS,
  })
  deps.linked(phone)
  return { kind: 'linked', memberName: name }
}
