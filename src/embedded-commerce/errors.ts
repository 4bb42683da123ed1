import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'

// Medusa v2's error bodies: {type, message, code?}; statuses as a real Medusa 2.21 answers them.
export type MedusaErrorType = 'invalid_data' | 'not_allowed' | 'not_found' | 'unauthorized' | 'duplicate_error' | 'conflict' | 'unknown_error'

const STATUS: Record<MedusaErrorType, number> = {
  invalid_data: 400,
  not_allowed: 400,
  not_found: 404,
  unauthorized: 401,
  duplicate_error: 422,
  conflict: 409,
  unknown_error: 500,
}

export class MedusaError extends Error {
  override name = 'MedusaError'
  readonly status: number
  constructor (readonly type: MedusaErrorType, message: string, readonly code?: string) {
    super(message)
    this.status = STATUS[type]
  }
}

/** Admin routes (and the customer's own routes) without a valid token: 401 with no `type`, as unauth_admin.json. */
export class UnauthorizedError extends Error {
  override name = 'UnauthorizedError'
}

export const invalidData = (message: string): MedusaError => new MedusaError('invalid_data', message)
export const notAllowed = (message: string, code?: string): MedusaError => new MedusaError('not_allowed', message, code)
export const notFound = (message: string): MedusaError => new MedusaError('not_found', message)

function fieldName (path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.')
}

function describe (value: unknown): string {
  if (value === undefined) return 'undefined'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A zod failure in Medusa's words, e.g. "Invalid request: Field 'title' is required; Unrecognized fields: 'foo'". */
export function medusaValidationMessage (error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const field = fieldName(issue.path)
    if (issue.code === 'unrecognized_keys') return `Unrecognized fields: ${issue.keys.map((k) => `'${k}'`).join(', ')}`
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return `Field '${field}' is required`
      return `Expected type: '${issue.expected}' for field '${field}', got: '${describe(issue.input)}'`
    }
    return field ? `Invalid value for field '${field}': ${issue.message}` : issue.message
  })
  return `Invalid request: ${parts.join('; ')}`
}

/** Parses outside input with a zod schema; a failure is 400 invalid_data in Medusa's words. */
export function parseInput<S extends z.ZodType> (schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {}, { reportInput: true })
  if (!result.success) throw invalidData(medusaValidationMessage(result.error))
  return result.data
}

const FASTIFY_ERRORS: Record<string, { status: number, message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'request entity too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400 },
}

export function commerceErrorHandler (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof UnauthorizedError) {
    reply.status(401).send({ message: 'Unauthorized' })
    return
  }
  if (error instanceof MedusaError) {
    request.log.info({ type: error.type, status: error.status }, error.message)
    reply.status(error.status).send(error.code ? { code: error.code, type: error.type, message: error.message } : { type: error.type, message: error.message })
    return
  }
  const known = FASTIFY_ERRORS[(error as FastifyError).code ?? '']
  if (known) {
    reply.status(known.status).send({ type: 'invalid_data', message: known.message ?? error.message })
    return
  }
  // Whatever else went wrong stays in the log; the body is Medusa's generic one.
  request.log.error({ err: error }, 'commerce request failed')
  reply.status(500).send({ type: 'unknown_error', message: 'An unknown error occurred.' })
}

/** An unknown route answers Express's HTML page, as a real Medusa does. */
export function commerceNotFoundHandler (request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? '/'
  const safe = path.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
  reply.status(404).type('text/html; charset=utf-8')
    .send(`<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${request.method} ${safe}</pre>\n</body>\n</html>\n`)
}
