import type { FastifyInstance } from 'fastify'
import { login, register } from '../services/accounts.ts'
import type { RouteDeps } from './shared.ts'

// POST /auth/{customer|user}/emailpass -> {token}; POST /auth/{customer|user}/emailpass/register -> a registration token.
export async function authRoutes (app: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  app.post('/auth/customer/emailpass', async (request) => ({ token: await login(ctx, 'customer', request.body) }))
  app.post('/auth/user/emailpass', async (request) => ({ token: await login(ctx, 'user', request.body) }))
  app.post('/auth/customer/emailpass/register', async (request) => ({ token: await register(ctx, request.body) }))
  app.post('/auth/user/emailpass/register', async (request) => ({ token: await register(ctx, request.body, 'user') }))
}
