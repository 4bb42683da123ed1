import type { LoggerOptions } from 'pino'

// Secrets, tokens and passwords never reach a log line: a value under one of these names is censored wherever it sits
// in what is logged, down to MAX_DEPTH (a request's headers, a body, a config). Matched without letter case.
const SECRET_NAMES = new Set([
  'authorization', 'cookie', 'set-cookie', 'x-webhook-signature', 'x-hub-signature-256', 'x-publishable-api-key',
  'password', 'adminpassword', 'token', 'secret', 'apikey',
])
const MAX_DEPTH = 4

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

/**
 * `value` with every field of a secret's name censored, down to `depth` levels; the very same object when it holds
 * none, so that a line without a secret costs a look at its keys and nothing is copied. What the caller logged is
 * never changed: a censored level is a copy.
 */
function censored<T extends object> (value: T, depth: number, skip?: Record<string, unknown>): T {
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key]
    let shown = field
    if (SECRET_NAMES.has(key.toLowerCase())) shown = REDACTED
    else if (depth > 1 && typeof field === 'object' && field !== null && !(skip && Object.hasOwn(skip, key))) shown = censored(field, depth - 1)
    if (shown !== field) {
      copy ??= (Array.isArray(value) ? [...value] : { ...value }) as Record<string, unknown>
      copy[key] = shown
    }
  }
  return (copy ?? value) as T
}

const serializers = {
  err: (err: unknown) => loggableError(err),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
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
    serializers,
    // our own censor rather than pino's `redact`: with wildcard paths that runs on every field of every line, and
    // most lines carry no object at all. The serialized fields (err, req, res) are left out: their serializers
    // above write only fields that hold no secret.
    formatters: {
      bindings: (bindings) => censored(bindings, MAX_DEPTH),
      log: (line) => censored(line, MAX_DEPTH, serializers),
    },
    ...(tty && env !== 'production' ? { transport: prettyTransport } : {}),
  }
}

const prettyTransport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }
