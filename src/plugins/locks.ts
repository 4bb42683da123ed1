import fp from 'fastify-plugin'
import { createLocks, type Locks } from '../stores/locks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Named locks shared by every instance on the same Redis (in-process without one). */
    locks: Locks
  }
}

export default fp(async (app) => {
  app.decorate('locks', createLocks(app.redis))
}, { name: 'locks', dependencies: ['redis'] })
