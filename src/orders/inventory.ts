import { requireRole, type Actor } from '../auth/actor.ts'
import type { Role } from '../tenants/roles.ts'
import type { Medusa } from '../commerce/medusa.ts'
import type { Tenant } from '../tenants/model.ts'
import { mapInventoryLevel } from './mapping.ts'
import type { InventoryLevel } from './schemas.ts'

/** Who reads the club's stock. */
export const STOCK_READERS: readonly Role[] = ['grower', 'admin']

/** The club's stock, as its backend counts it at the club's stock location. */
export class InventoryService {
  constructor (private readonly medusaFor: (tenant: Tenant) => Medusa) {}

  /** A page of stock levels and how many items there are; a limit of 0 gives only the count. */
  async list (actor: Actor, page: { limit: number, offset: number }): Promise<{ items: InventoryLevel[], count: number }> {
    requireRole(actor, STOCK_READERS)
    const medusa = this.medusaFor(actor.tenant)
    const answer = await medusa.listInventory({ limit: Math.max(page.limit, 1), offset: page.offset })
    const items = answer.inventory_items.slice(0, page.limit).map((i) => mapInventoryLevel(i, medusa.settings.stockLocationId))
    return { items, count: answer.count }
  }
}
