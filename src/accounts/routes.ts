import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponses } from '../schemas/common.ts'
import { loginBody, type LoginService } from './login.ts'

// POST /auth/customer/emailpass (members) and /auth/user/emailpass (staff): answer {token}, one of ours.

const headers = z.object({ 'tenant-id': z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/).optional() }).loose()

export async function accountRoutes (fastify: FastifyInstance, opts: { login: LoginService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  for (const actorType of ['customer', 'user'] as const) {
    app.post(`/auth/${actorType}/emailpass`, {
      schema: {
        tags: ['auth'],
        summary: actorType === 'customer' ? 'Member login: a token for the clubs they belong to' : 'Staff login: a token with their role and clubs',
        headers,
        body: loginBody,
        response: { 200: z.object({ token: z.string() }), ...errorResponses },
      },
    }, async (request) => ({ token: await opts.login.login(actorType, request.body.email, request.body.password, request.headers['tenant-id']) }))
  }
}
