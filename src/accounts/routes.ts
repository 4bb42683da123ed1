import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponses } from '../schemas/common.ts'
import { loginBody, type LoginService } from './login.ts'

// POST /auth/customer/emailpass (members) and /auth/user/emailpass (staff): answer {token}, one of ours.

const headers = z.object({ 'tenant-id': z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/).optional() }).loose()

const DEMO_MEMBER = { email: 'ana@example.com', password: 'demo-password' }
const DEMO_STAFF = { email: 'admin@club-norte.test', password: 'demo-password' }

export async function accountRoutes (fastify: FastifyInstance, opts: { login: LoginService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  for (const actorType of ['customer', 'user'] as const) {
    app.post(`/auth/${actorType}/emailpass`, {
      schema: {
        tags: ['auth'],
        summary: actorType === 'customer' ? 'Member login: a token for the clubs they belong to' : 'Staff login: a token with their role and clubs',
        headers,
        // The demo logins (SEED=demo, docs/commerce.md), so "Try it out" in /docs answers a token.
        body: loginBody.meta({ examples: [actorType === 'customer' ? DEMO_MEMBER : DEMO_STAFF] }),
        response: { 200: z.object({ token: z.string() }), ...errorResponses },
      },
    }, async (request) => ({ token: await opts.login.login(actorType, request.body.email, request.body.password, request.headers['tenant-id']) }))
  }
}
