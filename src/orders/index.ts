import fp from 'fastify-plugin'
import { registerAccounts } from '../accounts/index.ts'
import { registerClubPeople } from '../club/people.ts'
import { createUpstreamSessionStore } from '../accounts/sessions.ts'
import { commerceAccess } from './commerce-access.ts'
import { flowRoutes } from './flow-routes.ts'
import { createIdempotencyStore } from './idempotency.ts'
import { orderRoutes } from './routes.ts'
import { loadTenantsFile } from './settings.ts'
import { OrdersService } from './service.ts'
import { StoreFront } from './storefront.ts'
import { storeRoutes } from './store-routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    orders: OrdersService
    storeFront: StoreFront
  }
}

// The orders domain: the commerce client, the order routes, the member's store front and the login routes.
export default fp(async (app) => {
  // A bad tenants file stops the start-up here, with the tenant and field named.
  const file = app.config.commerce.tenantsFile ? await loadTenantsFile(app.config.commerce.tenantsFile) : {}
  const access = commerceAccess(app, file, createUpstreamSessionStore(app.redis))
  app.decorate('commerceAccess', access)
  const orders = new OrdersService({ sessions: access.sessions, notifier: app.notifier, locks: app.locks, log: app.log, medusaFor: access.medusaFor })
  await app.register(orderRoutes, { access, orders })
  await app.register(flowRoutes, { orders, idempotency: createIdempotencyStore(app.redis) })
  const store = new StoreFront(orders, access.sessions)
  app.decorate('orders', orders)
  app.decorate('storeFront', store)
  await app.register(storeRoutes, { store })
  await registerAccounts(app, access)
  await registerClubPeople(app, access)
}, { name: 'orders', dependencies: ['auth', 'commerce', 'notifications', 'locks'] })
