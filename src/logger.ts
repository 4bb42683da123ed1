import pino, { type DestinationStream, type LoggerOptions } from 'pino'

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

/** Linux's PIPE_BUF: a write to a pipe of at most this many bytes is never split, so the lines of processes sharing a pipe never interleave. */
const PIPE_BUF = 4096
/** How long a line may wait for others before it is written anyway: what an operator tailing a quiet club waits at most. */
export const LOG_FLUSH_MS = 100

/**
 * Log lines to a file descriptor (stdout) written in batches of up to PIPE_BUF bytes rather than one write(2) each:
 * a line cost the service a system call (about 75 µs of its CPU under load). A line waits at most `flushMs` for
 * others; `flushSync` writes every waiting line before it returns (a signal, a fatal error, the process's exit).
 * Writes are synchronous, as Node's own stdout to a pipe or a file is: a flush is whole and in order when it returns,
 * and no write is ever left in flight when the process exits.
 */
export class BatchedLog implements DestinationStream {
  private readonly out: ReturnType<typeof pino.destination>
  /** Bytes handed to `out`, and bytes `out` has written: the flush timer runs only while they differ. */
  private given = 0
  private written = 0
  private timer: NodeJS.Timeout | undefined

  constructor (fd = 1, private readonly flushMs = LOG_FLUSH_MS) {
    // sonic-boom writes once at least minLength bytes wait, each write one of its chunks of whole lines up to maxWrite
    this.out = pino.destination({ dest: fd, sync: true, maxWrite: PIPE_BUF, minLength: PIPE_BUF - 1 })
    this.out.on('write', (bytes: number) => { this.written += bytes })
  }

  write (line: string): void {
    this.given += Buffer.byteLength(line)
    this.out.write(line)
    this.timer ??= setTimeout(this.tick, this.flushMs).unref()
  }

  private readonly tick = (): void => {
    this.timer = undefined
    this.flushSync()
    if (this.written < this.given) this.timer = setTimeout(this.tick, this.flushMs).unref()
  }

  /** Writes every waiting line before it returns. */
  flushSync (): void {
    // a flush writes at least one chunk (sonic-boom may keep up to minLength back); no progress means stdout is
    // gone (EPIPE), with nowhere left to write
    let before = -1
    while (this.written < this.given && this.written > before) {
      before = this.written
      this.out.flush()
    }
  }
}

export interface ServiceLogger {
  /** Fastify's `logger` option. */
  options: LoggerOptions & { stream?: DestinationStream }
  /** Writes every waiting line now: on a signal, a fatal error and the process's exit. */
  flushSync: () => void
}

/** The service's own logger: pino-pretty on a terminal outside production, else JSON lines to stdout in batches. */
export function serviceLogger (level: string, env = 'production', tty = process.stdout.isTTY === true): ServiceLogger {
  const options = loggerOptions(level, env, tty)
  if (options.transport !== undefined) return { options, flushSync: () => {} }
  const stream = new BatchedLog()
  return { options: { ...options, stream }, flushSync: () => stream.flushSync() }
}
