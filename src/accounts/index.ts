import type { FastifyInstance } from 'fastify'
import type { CommerceAccess } from '../orders/commerce-access.ts'
import { createLoginLock } from './failed-logins.ts'
import { LoginService } from './login.ts'
import { accountRoutes } from './routes.ts'

/** Registers the login routes; called from the orders plugin, which owns the commerce access they share. */
export async function registerAccounts (app: FastifyInstance, access: CommerceAccess): Promise<void> {
  const login = new LoginService({ access, tenants: app.tenants, lock: createLoginLock(app.redis), jwtSecret: app.config.jwtSecret, log: app.log })
  await app.register(accountRoutes, { login })
}
