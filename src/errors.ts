import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import type { z } from 'zod'

// The one catalogue of error codes (spec, Errors) and the envelope every /api/* error uses.
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  INVALID_REQUEST: 400,
  MISSING_REQUIRED_FIELD: 400,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_PERMISSIONS: 403,
  LIMIT_EXCEEDED: 403,
  NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  DUPLICATE_RESOURCE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  BACKEND_ERROR: 502,
} as const

export type ErrorCode = keyof typeof ERROR_CODES
export type ErrorDetails = Record<string, unknown>

interface ErrorEnvelope {
  error: { code: string, message: string, details?: ErrorDetails }
}

export class AppError extends Error {
  override name = 'AppError'
  readonly statusCode: number
  readonly code: ErrorCode
  readonly details: ErrorDetails | undefined
  readonly headers: Record<string, string> | undefined

  constructor (code: ErrorCode, message: string, options: { status?: number, details?: ErrorDetails, headers?: Record<string, string> } = {}) {
    super(message)
    this.code = code
    this.statusCode = options.status ?? ERROR_CODES[code]
    this.details = options.details
    this.headers = options.headers
  }
}

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`)
export const conflict = (message: string, details?: ErrorDetails): AppError => new AppError('CONFLICT', message, { details })
export const forbidden = (message = 'Not allowed for this tenant'): AppError => new AppError('FORBIDDEN', message)
export const insufficientPermissions = (): AppError => new AppError('INSUFFICIENT_PERMISSIONS', 'Your role may not do this')

/** A zod failure as the spec's details: `errors` keyed by field path, each an array of messages. */
export function fieldErrors (issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>, message: string }>): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  for (const issue of issues) {
    const field = issue.path.map(String).join('.') || '_'
    ;(errors[field] ??= []).push(issue.message)
  }
  return errors
}

/** Fastify's schema validation entries (`request.validationError.validation`) as `errors` keyed by field. */
export function schemaFieldErrors (validation: ReadonlyArray<{ instancePath: string, message?: string }>): Record<string, string[]> {
  return fieldErrors(validation.map((v) => ({ path: v.instancePath.split('/').filter(Boolean), message: v.message ?? 'Invalid value' })))
}

export function validationError (error: z.ZodError, message = 'Validation failed'): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: { errors: fieldErrors(error.issues) } })
}

function envelope (code: string, message: string, details?: ErrorDetails): ErrorEnvelope {
  return { error: details ? { code, message, details } : { code, message } }
}

/** An error as the root handler answers it. */
export interface ErrorAnswer {
  status: number
  code: string
  message: string
  details?: ErrorDetails | undefined
  headers?: Record<string, string> | undefined
}

/**
 * The one way to the spec's flat exceptions: a route sets `config: { errorBody }` to answer its own body for an
 * error (undefined keeps the envelope). The service throws as always; only the route knows the HTTP form.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    errorBody?: (answer: ErrorAnswer, error: Error) => Record<string, unknown> | undefined
  }
}

/** The link routes' flat form: `{ error: message, details? }`. */
export function flatErrorBody ({ message, details }: ErrorAnswer): Record<string, unknown> {
  return details ? { error: message, details } : { error: message }
}

const FASTIFY_CODES: Record<string, { code: ErrorCode, status: number, message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_REQUEST', status: 400, message: 'Malformed JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_REQUEST', status: 400, message: 'Empty JSON body' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_REQUEST', status: 400 },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, message: 'Unsupported content type' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, message: 'Unsupported content type' },
  FST_ERR_VALIDATION: { code: 'VALIDATION_ERROR', status: 400 },
}

function classify (error: FastifyError | AppError | Error): ErrorAnswer {
  if (error instanceof AppError) {
    return { status: error.statusCode, code: error.code, message: error.message, details: error.details, headers: error.headers }
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = (error as FastifyError).validationContext
    return {
      status: 400, code: 'VALIDATION_ERROR', message: where ? `Invalid ${where}` : 'Validation failed', details: { errors: schemaFieldErrors(error.validation) }
    }
  }
  const fastifyCode = (error as FastifyError).code
  const known = fastifyCode ? FASTIFY_CODES[fastifyCode] : undefined
  if (known) return { status: known.status, code: known.code, message: known.message ?? error.message }
  const status = (error as FastifyError).statusCode
  if (status === 429) return { status, code: 'RATE_LIMITED', message: 'Too many requests, slow down' }
  if (status && status >= 400 && status < 500 && !isResponseSerializationError(error as FastifyError)) {
    return { status, code: status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', message: error.message }
  }
  // A 5xx never shows its internal message or stack.
  return { status: status && status >= 500 ? status : 500, code: 'INTERNAL_ERROR', message: 'Internal server error' }
}

export function errorHandler (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const c = classify(error)
  if (c.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ code: c.code, status: c.status }, c.message)
  if (c.headers) reply.headers(c.headers)
  reply.status(c.status)
  reply.send(request.routeOptions.config?.errorBody?.(c, error) ?? envelope(c.code, c.message, c.details))
}

export function notFoundHandler (request: FastifyRequest, reply: FastifyReply): void {
  reply.status(404).send(envelope('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`))
}
