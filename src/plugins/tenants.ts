import fp from 'fastify-plugin'
import { createTenantStore, type TenantStore } from '../tenants/store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    tenants: TenantStore
  }
}

export default fp(async (app) => {
  app.decorate('tenants', createTenantStore(app.redis))
}, { name: 'tenants', dependencies: ['redis'] })
