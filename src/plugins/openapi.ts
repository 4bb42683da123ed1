import fp from 'fastify-plugin'
import { z } from 'zod'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { accessOf, type RouteAccess } from '../auth/route-access.ts'
import { flatErrorBody } from '../errors.ts'

type Transform = typeof jsonSchemaTransform
type Schema = Record<string, any>

/** Each error answer a route can give, with what it means to a caller. */
const ERRORS: Record<number, string> = {
  400: 'Invalid input (the envelope\'s details.errors names each field)',
  401: 'No valid token: missing, expired or revoked',
  403: 'Not allowed: the token\'s role, or a club the token does not name',
  404: 'Not found: what the path names, or the Tenant-id club',
  409: 'Conflict with the current state',
  413: 'Request body is too large',
  415: 'Unsupported content type (send application/json)',
  422: 'Understood but refused by a rule',
  429: 'Too many requests: wait as long as Retry-After says',
  500: 'Internal error',
  503: 'A backend the answer needs is unavailable: try again',
}

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' }
const FLAT = {
  type: 'object',
  properties: { error: { type: 'string' }, details: { type: 'object', additionalProperties: {} } },
  required: ['error'],
}

const TENANT_HEADER = {
  type: 'string',
  description: 'The club to act in (a club id of your token). Required when your token names more than one club; else its only club.',
  examples: ['club-norte'],
}

/** The error answers a route can give, known from its guard, its inputs and what its summary says it answers. */
function errorCodes (schema: Schema, access: RouteAccess | undefined, rateLimited: boolean): number[] {
  const codes = new Set([400, 500])
  if (rateLimited) codes.add(429)
  if (access) codes.add(401)
  if (access?.scheme === 'bearer' && (access.tenant || access.roles)) codes.add(403)
  if (access?.tenant || schema.params) codes.add(404)
  if (schema.body) [413, 415].forEach((c) => codes.add(c))
  for (const named of `${schema.summary ?? ''} ${schema.description ?? ''}`.matchAll(/\b([45]\d\d)\b/g)) {
    const code = Number(named[1])
    if (ERRORS[code]) codes.add(code)
  }
  return [...codes].sort((a, b) => a - b)
}

function bodyExamples (body: unknown): unknown[] | undefined {
  return body instanceof z.ZodType ? z.globalRegistry.get(body)?.examples as unknown[] | undefined : undefined
}

function accessLine (access: RouteAccess | undefined): string {
  if (!access) return 'Public: no token.'
  if (access.scheme === 'secret') return 'Takes a configured shared secret as `Authorization: Bearer <secret>`, not a login token.'
  const who = access.roles ? `a token with the role ${access.roles.join(' or ')}` : 'any login token (member or staff)'
  const club = access.tenant ? ', acting in the club of `Tenant-id`' : ''
  return `Needs ${who} (from POST /auth/user/emailpass or /auth/customer/emailpass)${club}.`
}

/**
 * Completes each operation from its route, centrally so routes added later are documented the same way:
 * security and `Tenant-id` from the route's guard, the error answers it can give, and a line saying who may call.
 */
const transform: Transform = (input) => {
  const out = jsonSchemaTransform(input)
  const schema: Schema = { ...out.schema }
  if (schema.hide) return out
  const route = input.route as { onRequest?: unknown, config?: { rateLimit?: unknown, errorBody?: unknown } }
  const access = accessOf(route.onRequest)
  // The guard is the truth when there is one; a route without a known guard may say what it takes.
  schema.security = access ? [{ [access.scheme]: [] }] : schema.security ?? []
  if (access?.tenant) {
    const headers: Schema = schema.headers ?? { type: 'object', properties: {} }
    schema.headers = { ...headers, properties: { 'Tenant-id': TENANT_HEADER, ...headers.properties } }
  }
  const body = route.config?.errorBody === flatErrorBody ? FLAT : ENVELOPE
  const response: Schema = { ...schema.response }
  for (const code of errorCodes(schema, access, route.config?.rateLimit !== false)) {
    response[code] ??= { ...body, description: ERRORS[code] }
  }
  schema.response = response
  // zod leaves a body's examples out of its input JSON Schema when a field transforms (dates): put them back.
  const examples = bodyExamples(input.schema?.body)
  if (examples && schema.body && !schema.body.examples) schema.body = { ...schema.body, examples }
  schema.description = [schema.description, accessLine(access)].filter(Boolean).join('\n\n')
  return { ...out, schema }
}

// The document is generated from the routes' zod schemas, so the docs cannot drift from the code.
export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'club-service', version: '0.1.0', description: 'Crops, orders, notifications and the chat bot of a members\' club.' },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'A login token: POST /auth/user/emailpass (staff) or /auth/customer/emailpass (member)'
          },
          secret: { type: 'http', scheme: 'bearer', description: 'A configured shared secret (CRON_API_SECRET for the scheduled job)' },
        },
      },
    },
    transform,
    transformObject: jsonSchemaTransformObject,
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}, { name: 'openapi' })
