import fp from 'fastify-plugin'
import { createLoginLock } from './failed-logins.ts'
import { LoginService } from './login.ts'
import { accountRoutes } from './routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Staff and member login (the routes' service; the chat's login form calls it in process). */
    accounts: LoginService
  }
}

// Staff and member login, against each club's commerce backend.
export default fp(async (app) => {
  const login = new LoginService({
    access: app.commerce, tenants: app.tenants, lock: createLoginLock(app.redis), jwtSecret: app.config.jwtSecret, log: app.log
  })
  app.decorate('accounts', login)
  await app.register(accountRoutes, { login })
}, { name: 'accounts', dependencies: ['auth', 'tenants', 'commerce', 'rate-limit'] })
