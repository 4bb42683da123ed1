import { AppError, forbidden, insufficientPermissions } from '../errors.ts'
import type { Tenant } from '../tenants/model.ts'
import type { Role } from '../tenants/roles.ts'
import type { TenantStore } from '../tenants/store.ts'
import type { Principal } from './tokens.ts'

// Who acts, and in which club: what the domain services decide on. A route reads it from `request.actor` (set by
// `app.guard()`), the chat bot builds it from the member's linked account; either way the service says what it
// may do.

export interface Actor {
  /** The token's subject: a member's customer id, a staff user's id. */
  sub: string
  email: string | undefined
  name: string | undefined
  role: Role
  tenant: Tenant
}

export function actorFrom (principal: Principal, tenant: Tenant): Actor {
  return { sub: principal.sub, email: principal.email, name: principal.name, role: principal.role, tenant }
}

/** The operator's command (`npm run club`) acts as an admin of the club it sets up. */
export function operatorActor (tenant: Tenant): Actor {
  return { sub: 'operator', email: undefined, name: 'operator', role: 'admin', tenant }
}

/** The club `tenantId`, which must exist (else 404) and be one the token names (else 403). */
export async function tenantOf (tenants: TenantStore, principal: Principal, tenantId: string): Promise<Tenant> {
  const tenant = await tenants.get(tenantId)
  if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found`)
  if (!principal.tenants.includes(tenant.id)) throw forbidden(`Not a member of tenant ${tenant.id}`)
  return tenant
}

/**
 * A service's role rule. The service checks it for every caller; a route gives the same list to its guard so an
 * outside caller is refused before its body is read.
 */
export function requireRole (actor: Actor, roles: readonly Role[]): void {
  if (!roles.includes(actor.role)) throw insufficientPermissions()
}
