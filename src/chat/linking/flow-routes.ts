import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { verifyWebhookSignature } from '../signature.ts'
import { flowRequestSchema } from './flow-request.ts'
import { answerLoginForm, requireValidSignature, type LoginFormDeps } from './login-form.ts'

const flowAnswer = z.object({
  version: z.literal('3.0'),
  screen: z.enum(['CLUB_SELECT', 'LOGIN', 'SUCCESS']),
  data: z.record(z.string(), z.unknown()),
})
const pingAnswer = z.object({ data: z.object({ status: z.literal('active') }) })

// Like the webhook (spec, Authentication 6): checked on the raw bytes, before the body is validated or used.
function signatureWhenPresent (secret: string): preValidationAsyncHookHandler {
  return async (request) => {
    const header = request.headers['x-webhook-signature']
    if (header === undefined) return
    const raw = request.rawBody
    if (raw === undefined || !verifyWebhookSignature(secret, raw, Array.isArray(header) ? header[0] : header)) {
      throw new AppError('UNAUTHORIZED', 'Invalid webhook signature')
    }
  }
}

export async function flowRoutes (fastify: FastifyInstance, opts: { form: LoginFormDeps }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  app.post('/api/chat/flow-endpoint', {
    config: { rawBody: true },
    preValidation: signatureWhenPresent(app.config.chat.webhookSecret),
    schema: {
      tags: ['chat'],
      summary: 'Data endpoint of the in-chat login form (and the provider\'s health check)',
      security: [],
      body: flowRequestSchema,
      response: { 200: z.union([flowAnswer, pingAnswer]) },
    },
  }, async (request) => {
    const body = request.body
    if (body.kind === 'ping') {
      requireValidSignature(body.signatureValid)
      return { data: { status: 'active' as const } }
    }
    return await answerLoginForm(opts.form, body)
  })
}
