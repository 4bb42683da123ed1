import type { LoggerOptions } from 'pino'

// Secrets, tokens and passwords never reach a log line.
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-webhook-signature"]',
  'req.headers["x-publishable-api-key"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.adminPassword',
  '*.authorization',
  '*.*.password',
  '*.*.token',
]

const REDACTED = '[redacted]'
// Query values that are plain filters; every other value (token, code, key, anything unknown) is redacted.
const PLAIN_QUERY_KEYS = new Set(['limit', 'offset', 'page', 'status', 'domain', 'source', 'isRead', 'order', 'sort', 'fields', 'expand'])
// A path segment of an unknown route is kept only when it reads as a word; ids, codes and tokens do not.
const PLAIN_SEGMENT = /^[a-z][a-z_-]{0,31}$/i

/**
 * The URL as a log line may show it: a matched route's pattern (`/api/chat/link/:code`, never the values of
 * its path parameters), an unknown route's path with every segment that is not a plain word redacted, and
 * the query's names with only plain filter values kept. Link codes, `?token=`, reset and invite tokens and
 * whatever else a caller puts in a URL therefore never reach the log.
 */
function loggableUrl (rawUrl: string, routePattern: string | undefined): string {
  const at = rawUrl.indexOf('?')
  const path = at === -1 ? rawUrl : rawUrl.slice(0, at)
  const shownPath = routePattern ?? path.split('/').map((s) => s === '' || PLAIN_SEGMENT.test(s) ? s : REDACTED).join('/')
  if (at === -1) return shownPath
  const query = new URLSearchParams(rawUrl.slice(at + 1))
  const shown = [...query.keys()].map((key) => {
    const name = key.replace(/\[\]$/, '')
    const safeName = PLAIN_SEGMENT.test(name) ? key : REDACTED
    return `${safeName}=${PLAIN_QUERY_KEYS.has(name) ? encodeURIComponent(query.get(key) ?? '').slice(0, 64) : REDACTED}`
  })
  return `${shownPath}?${[...new Set(shown)].join('&')}`
}

interface LoggedRequest {
  method?: string
  url?: unknown
  host?: string
  ip?: string
  routeOptions?: { url?: string }
  socket?: { remotePort?: number }
}

interface LoggedError {
  type: string
  message: string
  code?: unknown
  statusCode?: unknown
  stack?: string | undefined
  cause?: LoggedError
}

const MAX_CAUSES = 3

/**
 * An error as a log line shows it: its class, message, code, status and stack, and so on down its causes. Only
 * those fields: an error's other properties (a request's headers, an upstream's answer, an AppError's body) may
 * carry tokens, so they are never written. Log an error as `{ err }`; this is what keeps that form safe.
 */
function loggableError (value: unknown, depth = 0): LoggedError {
  if (!(value instanceof Error)) return { type: typeof value, message: String(value) }
  const { code, statusCode } = value as { code?: unknown, statusCode?: unknown }
  return {
    type: value.name,
    message: value.message,
    ...(code !== undefined ? { code } : {}),
    ...(statusCode !== undefined ? { statusCode } : {}),
    stack: value.stack,
    ...(value.cause !== undefined && depth < MAX_CAUSES ? { cause: loggableError(value.cause, depth + 1) } : {}),
  }
}

const serializers = {
  err: (err: unknown) => loggableError(err),
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: typeof req.url === 'string' ? loggableUrl(req.url, req.routeOptions?.url) : undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
}

/**
 * JSON lines (what log shippers read) in production and whenever stdout is not a terminal; readable lines
 * through pino-pretty on a terminal in development.
 */
export function loggerOptions (level: string, env = 'production', tty = process.stdout.isTTY === true): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers,
    ...(tty && env !== 'production' ? { transport: prettyTransport } : {}),
  }
}

const prettyTransport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }
