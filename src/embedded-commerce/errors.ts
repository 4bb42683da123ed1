import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { z } from 'zod'

// The embedded backend's one error mechanism: everything it refuses is a MedusaError carrying the status and
// body a real Medusa 2.21 answers (test/embedded-commerce/samples/), and one handler writes it. Route schemas
// (the validator compiler below) and Fastify's own refusals end up as MedusaErrors too.

export type MedusaErrorType = 'invalid_data' | 'not_allowed' | 'not_found' | 'unauthorized' | 'duplicate_error' | 'conflict' | 'unknown_error'

export interface MedusaErrorBody {
  code?: string
  type?: MedusaErrorType
  message: string
}

export class MedusaError extends Error {
  override name = 'MedusaError'
  /** Fixed when made: Fastify writes its own `code` on the validation errors it passes on. */
  readonly body: MedusaErrorBody
  constructor (readonly status: number, body: MedusaErrorBody) {
    super(body.message)
    this.body = body
  }
}

const typed = (status: number, type: MedusaErrorType) => (message: string, code?: string): MedusaError =>
  new MedusaError(status, code ? { code, type, message } : { type, message })

export const invalidData = typed(400, 'invalid_data')
export const notAllowed = typed(400, 'not_allowed')
export const notFound = typed(404, 'not_found')
export const unauthorized = typed(401, 'unauthorized')
export const duplicate = typed(422, 'duplicate_error')
export const conflict = typed(409, 'conflict')
export const unknownError = typed(500, 'unknown_error')

/** No valid token for the route: Medusa's authentication middleware answers 401 with no `type` (unauth_admin.json). */
export const unauthenticated = (): MedusaError => new MedusaError(401, { message: 'Unauthorized' })

function fieldName (path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.')
}

function describe (value: unknown): string {
  if (value === undefined) return 'undefined'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A zod failure in Medusa's words, e.g. "Invalid request: Field 'title' is required; Unrecognized fields: 'foo'". */
function medusaValidationMessage (error: z.ZodError): string {
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

/**
 * Validates a route's params, querystring and body with their zod schemas (typed by fastify-type-provider-zod's
 * ZodTypeProvider). Unlike that package's compiler it keeps each issue's input, which Medusa's message quotes,
 * and reads a missing body as {} (Express's body parser does). A failure is 400 invalid_data.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema }) => (data) => {
  const result = schema.safeParse(data ?? {}, { reportInput: true })
  return result.success ? { value: result.data } : { error: invalidData(medusaValidationMessage(result.error)) }
}

const FASTIFY_ERRORS: Record<string, { status: number, message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'request entity too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400 },
}

function asMedusaError (error: FastifyError | Error): MedusaError | undefined {
  if (error instanceof MedusaError) return error
  const known = FASTIFY_ERRORS[(error as FastifyError).code ?? '']
  return known && new MedusaError(known.status, { type: 'invalid_data', message: known.message ?? error.message })
}

export function commerceErrorHandler (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const medusa = asMedusaError(error)
  if (medusa) {
    request.log.info({ type: medusa.body.type, status: medusa.status }, medusa.message)
    reply.status(medusa.status).send(medusa.body)
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
    .send(
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta ' +
        `charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${request.method} ${safe}</pre>\n</body>\n</html>\n`
    )
}
