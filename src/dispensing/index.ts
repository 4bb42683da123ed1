import fp from 'fastify-plugin'
import { rulesRoutes } from './routes.ts'
import { DispensingService } from './service.ts'
import { createMemberStore } from './store/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    dispensing: DispensingService
  }
}

// Dispensing under the club's rules: the rules, the members' standing and quota (docs/dispensing.md).
export default fp(async (app) => {
  const dispensing = new DispensingService({ tenants: app.tenants, members: createMemberStore(app.redis) })
  app.decorate('dispensing', dispensing)
  await app.register(rulesRoutes, { dispensing })
}, { name: 'dispensing', dependencies: ['auth', 'tenants', 'redis'] })
