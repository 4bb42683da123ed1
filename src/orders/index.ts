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

declare module 'fastify' {
  interface FastifyInstance {
    orders: OrdersService
    storeFront: StoreFront
  }
}

// The orders domain: the order routes, the one-call flows, the member's store front and the club's stock.
export default fp(async (app) => {
  const access = app.commerce
  const orders = new OrdersService({ sessions: access.sessions, notifier: app.notifier, locks: app.locks, log: app.log, medusaFor: access.medusaFor })
  await app.register(orderRoutes, { orders, inventory: new InventoryService(access.medusaFor) })
  await app.register(flowRoutes, { orders, idempotency: createIdempotencyStore(app.redis) })
  const kept = app.config.commerce.catalogCacheMs
  const store = new StoreFront(orders, access.sessions, new CatalogCache<Catalog>(kept), new CatalogCache<string[]>(kept), new CatalogCache<UpstreamShippingOption[]>(kept))
  app.decorate('orders', orders)
  app.decorate('storeFront', store)
  await app.register(storeRoutes, { store })
}, { name: 'orders', dependencies: ['auth', 'commerce', 'notifications', 'locks'] })
