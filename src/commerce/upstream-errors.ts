import { AppError } from '../errors.ts'

// How an upstream answer or failure becomes one of our errors (spec, Errors, rules 1 and 2). Pure.

export interface UpstreamFailure {
  status: number
  /** The upstream body, when it was JSON. */
  body: unknown
  retryAfter: string | undefined
}

interface MedusaErrorBody {
  type?: string
  code?: string
  message?: string
}

function readBody (body: unknown): MedusaErrorBody {
  if (!body || typeof body !== 'object') return {}
  const b = body as Record<string, unknown>
  const pick = (k: string) => typeof b[k] === 'string' ? b[k] : undefined
  return { type: pick('type'), code: pick('code'), message: pick('message') }
}

/** A state conflict reported as a 400 by Medusa: out of stock at add-to-cart or at completion. */
function isStockConflict (b: MedusaErrorBody): boolean {
  return b.code === 'insufficient_inventory' || /not enough stock|required inventory/i.test(b.message ?? '')
}

const RETRY_AFTER = /^\d{1,6}$|^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * Upstream rejections become our own catalogue messages: the upstream's words (which may quote its SQL, its
 * configuration or another user's data) never reach our caller. They only steer the mapping; `upstreamText`
 * gives them to the log, at debug.
 */
export function mapUpstreamStatus (failure: UpstreamFailure): AppError {
  const b = readBody(failure.body)
  const { status } = failure
  if (status === 429) {
    const retryAfter = failure.retryAfter && RETRY_AFTER.test(failure.retryAfter) ? failure.retryAfter : undefined
    return new AppError('SERVICE_UNAVAILABLE', 'The commerce backend is busy, retry later', {
      status: 429, headers: retryAfter ? { 'retry-after': retryAfter } : undefined
    })
  }
  if (status >= 500) return new AppError('BACKEND_ERROR', `The commerce backend failed (HTTP ${status})`)
  if (status === 404) return new AppError('NOT_FOUND', 'Not found in the commerce backend')
  if (status === 409) return new AppError('CONFLICT', 'Conflict with the current state in the commerce backend')
  // Medusa answers a unique value taken (an email's invite, customer) 422 duplicate_error.
  if (b.type === 'duplicate_error') return new AppError('CONFLICT', 'It exists already in the commerce backend')
  if (status === 401 || status === 403) return new AppError('BACKEND_ERROR', 'The commerce backend refused the club\'s credentials')
  if (status === 400 && /publishable/i.test(b.message ?? '')) return new AppError('BACKEND_ERROR', 'The commerce backend refused the club\'s publishable key')
  if (isStockConflict(b)) return new AppError('CONFLICT', 'Not enough stock for one of the items')
  if (status >= 400) return new AppError('VALIDATION_ERROR', 'The commerce backend rejected the request', { status: 422 })
  return new AppError('BACKEND_ERROR', `Unexpected answer from the commerce backend (HTTP ${status})`)
}

/** What the upstream said, shortened, for a debug log line only. */
export function upstreamText (body: unknown): string | undefined {
  return readBody(body).message?.slice(0, 500)
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'])

/** A transport failure (no HTTP answer): a timeout is 504, anything else (refused, reset, unreachable) 502. */
export function mapTransportError (err: unknown): AppError {
  const code = (err as { code?: string } | null)?.code
  if (code && TIMEOUT_CODES.has(code)) return new AppError('SERVICE_UNAVAILABLE', 'The commerce backend did not answer in time', { status: 504 })
  return new AppError('BACKEND_ERROR', 'The commerce backend is unreachable')
}

export function malformedAnswer (what: string): AppError {
  return new AppError('BACKEND_ERROR', `The commerce backend sent a malformed ${what}`)
}
