import { requireRole, type Actor } from '../auth/actor.ts'
import { notFound } from '../errors.ts'
import type { Tenant } from '../tenants/model.ts'
import type { TenantStore } from '../tenants/store.ts'
import { CLUB_ADMINS } from './roles.ts'

/** What a club's admins may change themselves; a field left out stays, `pickup: null` clears the pickup details. */
export type ClubPatch = { [K in 'name' | 'locale' | 'timeZone' | 'chatTemplates']?: Tenant[K] | undefined } & {
  pickup?: NonNullable<Tenant['pickup']> | null | undefined
}

/** The tenant with a patch applied. */
function applyClubPatch (tenant: Tenant, patch: ClubPatch): Tenant {
  const { pickup, ...rest } = patch
  const next: Tenant = { ...tenant, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) }
  if (pickup === null) delete next.pickup
  else if (pickup) next.pickup = pickup
  return next
}

/** The settings of the actor's club that its admins run. */
export class ClubSettings {
  constructor (private readonly tenants: TenantStore) {}

  read (actor: Actor): Tenant {
    requireRole(actor, CLUB_ADMINS)
    return actor.tenant
  }

  async change (actor: Actor, patch: ClubPatch): Promise<Tenant> {
    requireRole(actor, CLUB_ADMINS)
    const updated = await this.tenants.update(actor.tenant.id, (current) => applyClubPatch(current, patch))
    if (!updated) throw notFound(`Tenant ${actor.tenant.id}`)
    return updated
  }
}
