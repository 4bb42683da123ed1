import { Agent, type Dispatcher } from 'undici'
import type { z } from 'zod'
import type { FastifyBaseLogger } from 'fastify'
import { malformedAnswer, mapTransportError, mapUpstreamStatus, upstreamText, type UpstreamFailure } from './upstream-errors.ts'

// The one HTTP client for every club's commerce backend (Medusa v2 dialect). One undici Agent keeps a
// connection pool per origin; admin tokens are cached per backend and admin login.

export type Query = Record<string, string | number | readonly string[] | undefined>

/** Medusa's actor type: a member logs in as a customer, staff as a user. */
export type ActorType = 'customer' | 'user'

/** Who a call is made as: the storefront (publishable key, maybe a customer's token) or the club's admin login. */
type Caller =
  | { kind: 'store', publishableKey: string, token?: string | undefined }
  | { kind: 'admin', email: string, password: string }
  | { kind: 'none' }

export interface CallOptions<S extends z.ZodType> {
  caller: Caller
  query?: Query
  body?: unknown
  schema: S
}

const ADMIN_TOKEN_MARGIN_S = 60
const DEFAULT_TOKEN_LIFETIME_S = 3600

/** Reads a JWT's `exp` (seconds) without verifying it: only to know how long to keep a token we were given. */
export function jwtExpiry (token: string): number | undefined {
  const payload = token.split('.')[1]
  if (!payload) return undefined
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined
  } catch {
    return undefined
  }
}

export function queryString (query: Query = {}): string {
  const parts: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    // Keys are this module's own constants (with qs-style brackets); only values come from outside.
    if (Array.isArray(value)) for (const v of value) parts.push(`${key}[]=${encodeURIComponent(v)}`)
    else parts.push(`${key}=${encodeURIComponent(String(value))}`)
  }
  return parts.length > 0 ? `?${parts.join('&')}` : ''
}

interface CachedToken { token: string, expiresAt: number }

/** Told of every HTTP call upstream (the latency metric): the club it was for ('-': several), the status or 'error'. */
export type CallObserver = (call: { club: string, method: string, status: string, seconds: number }) => void

export class CommerceClient {
  private readonly agent: Agent
  private readonly adminTokens = new Map<string, Promise<CachedToken>>()
  private club = '-'

  constructor (timeoutMs: number, private readonly observe: CallObserver = () => {}, private readonly log?: Pick<FastifyBaseLogger, 'debug'>) {
    this.agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs, keepAliveTimeout: 10_000 })
  }

  async close (): Promise<void> {
    await this.agent.close()
  }

  /** This same client (its connection pool, its admin tokens) with its calls observed under `club`. */
  forClub (club: string): CommerceClient {
    const scoped = Object.create(this) as CommerceClient
    scoped.club = club
    return scoped
  }

  /** One JSON call; upstream errors come back as our AppErrors, a body that fails `schema` as 502. */
  async call<S extends z.ZodType> (baseUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, opts: CallOptions<S>): Promise<z.infer<S>> {
    let res = await this.send(baseUrl, method, path, opts, false)
    if (res.statusCode === 401 && opts.caller.kind === 'admin') {
      // An admin token can be revoked or the backend restarted with a new secret: log in again, once.
      await res.body.dump()
      res = await this.send(baseUrl, method, path, opts, true)
    }
    const json = await readJson(res)
    if (res.statusCode < 200 || res.statusCode >= 300) throw this.refused(`${method} ${path.split('?')[0]}`, res, json)
    if (!json.ok) throw malformedAnswer(`answer to ${method} ${path.split('?')[0]}`)
    const parsed = opts.schema.safeParse(json.value)
    if (!parsed.success) throw malformedAnswer(`answer to ${method} ${path.split('?')[0]}`)
    return parsed.data
  }

  /** `POST /auth/{actorType}/emailpass`: the token, or undefined when the backend refuses the credentials. */
  async login (baseUrl: string, actorType: ActorType, email: string, password: string): Promise<string | undefined> {
    const res = await this.dispatch(
      baseUrl, 'POST', `/auth/${actorType}/emailpass`, { 'content-type': 'application/json' }, JSON.stringify({ email, password })
    )
    const json = await readJson(res)
    if (res.statusCode === 401 || res.statusCode === 400) return undefined
    if (res.statusCode < 200 || res.statusCode >= 300) throw this.refused(`POST /auth/${actorType}/emailpass`, res, json)
    const token = json.ok ? (json.value as { token?: unknown } | null)?.token : undefined
    if (typeof token !== 'string' || token.length === 0) throw malformedAnswer('login answer')
    return token
  }

  /** Our error for an upstream refusal; the upstream's own words go to the log at debug, never to the caller. */
  private refused (call: string, res: Dispatcher.ResponseData, json: { ok: true, value: unknown } | { ok: false }): Error {
    const failure: UpstreamFailure = { status: res.statusCode, body: json.ok ? json.value : undefined, retryAfter: header(res, 'retry-after') }
    this.log?.debug({ call, status: failure.status, upstream: upstreamText(failure.body) }, 'commerce backend refused a call')
    return mapUpstreamStatus(failure)
  }

  private async send (baseUrl: string, method: string, path: string, opts: CallOptions<z.ZodType>, refresh: boolean): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json' }
    const caller = opts.caller
    if (caller.kind === 'store') {
      headers['x-publishable-api-key'] = caller.publishableKey
      if (caller.token) headers.authorization = `Bearer ${caller.token}`
    } else if (caller.kind === 'admin') {
      headers.authorization = `Bearer ${await this.adminToken(baseUrl, caller.email, caller.password, refresh)}`
    }
    let body: string | undefined
    if (method !== 'GET') {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(opts.body ?? {})
    }
    return await this.dispatch(baseUrl, method, `${path}${queryString(opts.query)}`, headers, body)
  }

  private async dispatch (
    baseUrl: string, method: string, path: string, headers: Record<string, string>, body: string | undefined
  ): Promise<Dispatcher.ResponseData> {
    const url = new URL(baseUrl)
    const started = performance.now()
    let status = 'error'
    try {
      const res = await this.agent.request({
        origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}${path}`, method: method as Dispatcher.HttpMethod, headers, body
      })
      status = String(res.statusCode)
      return res
    } catch (err) {
      throw mapTransportError(err)
    } finally {
      this.observe({ club: this.club, method, status, seconds: (performance.now() - started) / 1000 })
    }
  }

  private async adminToken (baseUrl: string, email: string, password: string, refresh: boolean): Promise<string> {
    const key = `${baseUrl}\n${email}`
    const cached = this.adminTokens.get(key)
    if (cached && !refresh) {
      const value = await cached.catch(() => undefined)
      if (value && value.expiresAt > Date.now() / 1000 + ADMIN_TOKEN_MARGIN_S) return value.token
    }
    // One login at a time per backend and user: concurrent callers share the pending promise.
    const pending = this.login(baseUrl, 'user', email, password).then((token) => {
      if (!token) throw mapUpstreamStatus({ status: 401, body: undefined, retryAfter: undefined })
      return { token, expiresAt: jwtExpiry(token) ?? Date.now() / 1000 + DEFAULT_TOKEN_LIFETIME_S }
    })
    this.adminTokens.set(key, pending)
    pending.catch(() => { if (this.adminTokens.get(key) === pending) this.adminTokens.delete(key) })
    return (await pending).token
  }
}

function header (res: Dispatcher.ResponseData, name: string): string | undefined {
  const value = res.headers[name]
  return Array.isArray(value) ? value[0] : value
}

async function readJson (res: Dispatcher.ResponseData): Promise<{ ok: true, value: unknown } | { ok: false }> {
  let text: string
  try {
    text = await res.body.text()
  } catch (err) {
    throw mapTransportError(err)
  }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}
