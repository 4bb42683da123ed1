import fp from 'fastify-plugin'
import { flowRoutes } from './flow-routes.ts'
import { createIdempotencyStore } from './idempotency.ts'
import { InventoryService } from './inventory.ts'
import { orderRoutes } from './routes.ts'
import { OrdersService } from './service.ts'
import { StoreFront, type Catalog } from './storefront.ts'
import { CatalogCache } from '../commerce/catalog-cache.ts'
import type { UpstreamShippingOption } from '../commerce/upstream.ts'
import { storeRoutes } from './store-routes.ts'
import { OrderDispensing } from './dispense.ts'
import { HandoverService } from './handover.ts'
import type { Actor } from '../auth/actor.ts'
import { createUnsettledStore } from './unsettled.ts'

declare module 'fastify' {
  interface FastifyInstance {
    orders: OrdersService
    storeFront: StoreFront
    orderDispensing: OrderDispensing
  }
}

// The orders domain: the order routes, the one-call flows, the member's store front and the club's stock.
export default fp(async (app) => {
  const access = app.commerce
  const kept = app.config.commerce.catalogCacheMs
  const catalogs = new CatalogCache<Catalog>(kept)
  // The grams of an order's variants come from the club's catalog as the bot keeps it (read once more when a variant is not in it).
  const products = async (actor: Actor) => (await store.catalog(actor)).products
  const dispense = new OrderDispensing(app.dispensing, {
    products,
    fresh: async (actor) => {
      catalogs.drop(actor.tenant.id)
      return await products(actor)
    },
  }, async (tenant, variantId, own) => await app.ledger.thcOf(tenant, variantId, own))
  const orders = new OrdersService({ sessions: access.sessions, notifier: app.notifier, locks: app.locks, log: app.log, medusaFor: access.medusaFor, dispense })
  const handover = new HandoverService(orders, app.ledger, app.locks)
  await app.register(orderRoutes, { orders, inventory: new InventoryService(access.medusaFor), handover })
  // completions whose outcome is not known yet, of the bot's and the store front's orders and of the one-call flow
  const unsettled = createUnsettledStore(app.redis)
  await app.register(flowRoutes, { orders, idempotency: createIdempotencyStore(app.redis), dispenser: handover, unsettled })
  const store: StoreFront = new StoreFront(
    orders, access.sessions, catalogs, new CatalogCache<string[]>(kept), new CatalogCache<UpstreamShippingOption[]>(kept), dispense,
    { unsettled, locks: app.locks, tenants: app.tenants, log: app.log }
  )
  app.decorate('orders', orders)
  app.decorate('storeFront', store)
  app.decorate('orderDispensing', dispense)
  await app.register(storeRoutes, { store })

  // Completions interrupted (answer lost, process killed) are read back and settled, club by club (storefront.ts).
  const afterMs = app.config.commerce.settleAfterMs
  let settling: Promise<void> | undefined
  const settleAll = async (): Promise<void> => {
    for (const tenant of await app.tenants.list()) {
      const settled = await store.settle(tenant.id, afterMs)
      if (settled.placed + settled.released + settled.unknown > 0) app.log.info({ tenantId: tenant.id, ...settled }, 'unsettled cart completions read back')
    }
  }
  const timer = setInterval(() => {
    settling ??= settleAll().catch((err: unknown) => { app.log.warn({ err }, 'settling cart completions failed: tried again later') })
      .finally(() => { settling = undefined })
  }, afterMs)
  timer.unref()
  app.addHook('onClose', async () => {
    clearInterval(timer)
    await settling
  })
}, { name: 'orders', dependencies: ['auth', 'commerce', 'notifications', 'locks', 'dispensing'] })
