import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError, flatErrorBody, schemaFieldErrors } from '../../errors.ts'
import type { LinkCodeStore } from './link-code-store.ts'
import { linkCodeSchema, linkRecordSchema } from './link-record.ts'
import { consumeLinkCode, createLinkCode } from './link-service.ts'

// spec, Errors rule 4: missing fields say "Required", a bad email "Invalid email".
const required = (issue: { input: unknown }): string => issue.input === undefined ? 'Required' : 'Expected a string'
const requiredString = () => z.string({ error: required }).min(1, 'Required')

const linkRequestSchema = z.object({
  customerId: requiredString(),
  tenantId: requiredString(),
  email: z.email({ error: (issue) => issue.input === undefined ? 'Required' : 'Invalid email' }),
  name: requiredString(),
  token: requiredString(),
}, { error: 'Expected a JSON object' })

const flatError = z.object({ error: z.string(), details: z.record(z.string(), z.unknown()).optional() })

// The link routes answer the spec's flat error form, with their own wording for a failed validation.
const flat = { errorBody: flatErrorBody }
function refuseInvalid (message: string): preHandlerAsyncHookHandler {
  return async (request) => {
    const failure = request.validationError
    if (failure) throw new AppError('VALIDATION_ERROR', message, { details: { errors: schemaFieldErrors(failure.validation) } })
  }
}

export async function linkRoutes (fastify: FastifyInstance, opts: { codes: LinkCodeStore }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()

  app.post('/api/chat/link', {
    config: flat,
    attachValidation: true,
    preHandler: refuseInvalid('Invalid request body'),
    schema: {
      tags: ['chat'],
      summary: 'Create a one-time link code after a web login (valid 10 minutes)',
      security: [],
      body: linkRequestSchema,
      response: { 201: z.object({ code: z.uuid() }), 400: flatError, 401: flatError, 404: flatError },
    },
  }, async (request, reply) => {
    const code = await createLinkCode({ codes: opts.codes, tenants: app.tenants, jwtSecret: app.config.jwtSecret }, request.body)
    return reply.status(201).send({ code })
  })

  app.get('/api/chat/link/:code', {
    config: flat,
    attachValidation: true,
    preHandler: refuseInvalid('Invalid link code'),
    schema: {
      tags: ['chat'],
      summary: 'Consume a link code (single use)',
      security: [],
      params: z.object({ code: linkCodeSchema }),
      response: { 200: linkRecordSchema, 400: flatError, 404: flatError },
    },
  }, async (request) => await consumeLinkCode(opts.codes, request.params.code))
}
