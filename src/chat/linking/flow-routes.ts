import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { refuseDeepJson } from '../../schemas/json-limits.ts'
import { keepRawBodies, rawBodyOf, verifyWebhookSignature } from '../signature.ts'
import { flowRequestSchema } from './flow-request.ts'
import { answerLoginForm, requireValidSignature, type LoginFormDeps } from './login-form.ts'

const flowAnswer = z.object({
  version: z.literal('3.0'),
  screen: z.enum(['CLUB_SELECT', 'LOGIN', 'SUCCESS']),
  data: z.record(z.string(), z.unknown()),
})
const pingAnswer = z.object({ data: z.object({ status: z.literal('active') }) })

/**
 * Like the webhook (spec, Authentication 6), on every call, ping included: the signature is checked on the raw
 * bytes before the body is parsed, validated or used, so an unsigned caller learns nothing (not even whether a
 * phone was sent the form) and changes nothing. Only then does the body become the JSON the schema checks.
 */
function requireSignedJson (secret: string): preValidationAsyncHookHandler {
  return async (request) => {
    const raw = rawBodyOf(request.body)
    const header = request.headers['x-webhook-signature']
    if (!verifyWebhookSignature(secret, raw, Array.isArray(header) ? header[0] : header)) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing webhook signature')
    }
    const text = raw.toString('utf8')
    refuseDeepJson(text)
    try {
      request.body = JSON.parse(text)
    } catch {
      throw new AppError('INVALID_REQUEST', 'Malformed JSON body')
    }
  }
}

export async function flowRoutes (scope: FastifyInstance, opts: { form: LoginFormDeps }) {
  keepRawBodies(scope)
  const app = scope.withTypeProvider<ZodTypeProvider>()
  app.post('/api/chat/flow-endpoint', {
    preValidation: requireSignedJson(app.config.chat.webhookSecret),
    schema: {
      tags: ['chat'],
      summary: 'Data endpoint of the in-chat login form (and the provider\'s health check); signed like the webhook',
      security: [],
      headers: z.object({ 'x-webhook-signature': z.string().optional() }).loose(),
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
