import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { credentialsBody } from '../requests.ts'
import { login, register } from '../services/accounts.ts'
import type { RouteDeps } from './shared.ts'

// POST /auth/{customer|user}/emailpass -> {token}; POST /auth/{customer|user}/emailpass/register -> a registration token.
export async function authRoutes (fastify: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const schema = { body: credentialsBody }
  app.post('/auth/customer/emailpass', { schema }, async (request) => ({ token: await login(ctx, 'customer', request.body) }))
  app.post('/auth/user/emailpass', { schema }, async (request) => ({ token: await login(ctx, 'user', request.body) }))
  app.post('/auth/customer/emailpass/register', { schema }, async (request) => ({ token: await register(ctx, request.body) }))
  app.post('/auth/user/emailpass/register', { schema }, async (request) => ({ token: await register(ctx, request.body, 'user') }))
}
