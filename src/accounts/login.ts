import type { FastifyBaseLogger } from 'fastify'
import { z } from 'zod'
import { signAccessToken } from '../auth/tokens.ts'
import { type Role } from '../tenants/roles.ts'
import { AppError } from '../errors.ts'
import { jwtExpiry, type ActorType } from '../commerce/client.ts'
import type { CommerceAccess } from '../commerce/access.ts'
import { customerTenants } from '../orders/mapping.ts'
import type { Medusa } from '../commerce/medusa.ts'
import type { Tenant } from '../tenants/model.ts'
import type { TenantStore } from '../tenants/store.ts'
import type { LoginLock } from './failed-logins.ts'

// Login through the clubs' commerce backends: the backend checks the password, this
// service decides role and clubs and issues its own token. The upstream token stays here.

const MAX_TOKEN_LIFETIME_S = 24 * 3600
const MIN_TOKEN_LIFETIME_S = 60
const DEFAULT_UPSTREAM_LIFETIME_S = 24 * 3600

/** What a login takes: the routes' body, and what the chat's login form checks before calling `login`. */
export const loginBody = z.object({ email: z.email().max(320), password: z.string().min(1).max(1024) })

const badCredentials = () => new AppError('UNAUTHORIZED', 'Invalid email or password')

export interface LoginDeps {
  access: CommerceAccess
  tenants: TenantStore
  lock: LoginLock
  jwtSecret: string
  log: FastifyBaseLogger
}

interface Accepted {
  tenant: Tenant
  token: string
  customerId?: string
  name?: string
}

export class LoginService {
  constructor (private readonly deps: LoginDeps) {}

  async login (actorType: ActorType, rawEmail: string, password: string, tenantId: string | undefined): Promise<string> {
    const email = rawEmail.trim().toLowerCase()
    const named = await this.candidateTenants(tenantId)
    // Counted before the password is tried, in one atomic step: parallel guesses past the limit never reach it.
    const wait = await this.deps.lock.take(email)
    if (wait > 0) {
      throw new AppError('RATE_LIMITED', 'Too many failed logins for this email, try again later', {
        status: 429, headers: { 'retry-after': String(Math.ceil(wait / 1000)) }
      })
    }
    const staff = actorType === 'user' ? await this.deps.tenants.getStaff(email) : undefined
    // Staff are checked at their own clubs even when naming another, so that the answer is then 403 as for a
    // member. An email that is no staff's still has its password tried at the named clubs' backends, the same
    // work as for a known one, so neither the answer nor its time tells whether the account exists.
    const candidates = staff ? (await this.deps.tenants.list()).filter((t) => staff.tenants.includes(t.id)) : named
    let found: { accepted: Accepted[], passwordOk: boolean }
    try {
      found = await this.tryBackends(actorType, email, password, candidates)
    } catch (err) {
      await this.deps.lock.giveBack(email)
      throw err
    }
    if (actorType === 'user' && !staff) throw badCredentials()
    const accepted = found.accepted.filter((a) => named.some((t) => t.id === a.tenant.id))
    if (!found.passwordOk) throw badCredentials()
    await this.deps.lock.clear(email)
    // A staff token is signed no earlier than their revocation time, read before the entry it is signed from: a
    // change made while the backends answered is either in both or refuses the token at its first use.
    let signed = staff
    let notBefore = 0
    if (staff) {
      notBefore = await this.deps.tenants.staffRevokedBefore(staff.id)
      signed = await this.deps.tenants.getStaff(email)
      if (signed?.id !== staff.id) throw badCredentials()
    }
    const clubs = signed ? accepted.filter((a) => signed.tenants.includes(a.tenant.id)) : accepted
    if (clubs.length === 0) throw new AppError('FORBIDDEN', tenantId ? 'Not a member of this club' : 'Not a member of any club')

    const first = clubs[0] as Accepted
    const sub = signed?.id ?? first.customerId ?? email
    const role: Role = signed?.role ?? 'member'
    let earliest = Infinity
    for (const a of clubs) {
      const expiresAt = jwtExpiry(a.token) ?? Date.now() / 1000 + DEFAULT_UPSTREAM_LIFETIME_S
      earliest = Math.min(earliest, expiresAt)
      await this.deps.access.sessions.put(a.tenant.id, sub, { token: a.token, ...(a.customerId ? { customerId: a.customerId } : {}), expiresAt })
    }
    // Ours lives no longer than the upstream logins it stands for.
    const lifetime = Math.max(MIN_TOKEN_LIFETIME_S, Math.min(MAX_TOKEN_LIFETIME_S, Math.floor(earliest - Date.now() / 1000)))
    return await signAccessToken(this.deps.jwtSecret, {
      sub,
      role,
      tenants: clubs.map((a) => a.tenant.id),
      email,
      name: signed?.name ?? first.name ?? email,
    }, lifetime, notBefore)
  }

  private async candidateTenants (tenantId: string | undefined): Promise<Tenant[]> {
    if (!tenantId) return await this.deps.tenants.list()
    const tenant = await this.deps.tenants.get(tenantId)
    if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found`)
    return [tenant]
  }

  /**
   * Logs in once per backend (clubs may share one), then keeps the clubs where the login is valid and, for a
   * customer, where they are a member. A backend that fails (down, slow) counts only if no other one answered.
   */
  private async tryBackends (actorType: ActorType, email: string, password: string, tenants: Tenant[]): Promise<{ accepted: Accepted[], passwordOk: boolean }> {
    const byBackend = new Map<string, Array<{ tenant: Tenant, medusa: Medusa }>>()
    for (const tenant of tenants) {
      try {
        const medusa = this.deps.access.medusaFor(tenant)
        const group = byBackend.get(medusa.settings.baseUrl) ?? []
        group.push({ tenant, medusa })
        byBackend.set(medusa.settings.baseUrl, group)
      } catch (err) {
        this.deps.log.warn({ tenantId: tenant.id, err }, 'club skipped at login')
      }
    }
    const results = await Promise.allSettled([...byBackend.entries()].map(async ([baseUrl, group]) => {
      const token = await this.deps.access.client.login(baseUrl, actorType, email, password)
      if (!token) return { accepted: [], passwordOk: false }
      if (actorType === 'user') return { accepted: group.map(({ tenant }) => ({ tenant, token })), passwordOk: true }
      const customer = await (group[0] as { medusa: Medusa }).medusa.me(token)
      const clubs = customerTenants(customer)
      const name = [customer.first_name, customer.last_name].filter(Boolean).join(' ') || undefined
      const accepted = group.filter(({ tenant }) => clubs.includes(tenant.id))
        .map(({ tenant }) => ({ tenant, token, customerId: customer.id, ...(name ? { name } : {}) }))
      return { accepted, passwordOk: true }
    }))
    const answered = results.filter((r) => r.status === 'fulfilled').map((r) => r.value)
    if (answered.length === 0 && results.length > 0) {
      const reason = (results[0] as PromiseRejectedResult).reason
      throw reason instanceof AppError ? reason : new AppError('BACKEND_ERROR', 'The commerce backend is unreachable')
    }
    return { accepted: answered.flatMap((a) => a.accepted), passwordOk: answered.some((a) => a.passwordOk) }
  }
}
