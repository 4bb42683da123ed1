import type { Log } from './steps.ts'

const REQUEST_TIMEOUT_MS = 30_000

/** The path as logged: an invite's `token` query parameter is a credential. */
const shown = (path: string): string => path.replace(/([?&]token=)[^&]*/, '$1***')

export class MedusaHttpError extends Error {
  constructor (readonly method: string, readonly path: string, readonly status: number, readonly body: string) {
    super(`${method} ${shown(path)} -> ${status}: ${body.slice(0, 500)}`)
  }
}

export interface ClientOptions {
  /** Bearer token of an admin user or a customer. */
  token?: string
  /** Sent as x-publishable-api-key, which every /store route requires. */
  publishableKey?: string
  log?: Log
}

/** A thin JSON client for the Medusa v2 HTTP API; any non-2xx answer throws with the raw body. */
export class MedusaClient {
  constructor (readonly baseUrl: string, private readonly opts: ClientOptions = {}) {}

  with (opts: ClientOptions): MedusaClient {
    return new MedusaClient(this.baseUrl, { ...this.opts, ...opts })
  }

  get<T> (path: string): Promise<T> {
    return this.request<T>('GET', path)
  }

  post<T> (path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, body)
  }

  private async request<T> (method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`
    if (this.opts.publishableKey) headers['x-publishable-api-key'] = this.opts.publishableKey
    const started = Date.now()
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
    const text = await res.text()
    this.opts.log?.(`${method} ${shown(path)} -> ${res.status} (${Date.now() - started} ms)${res.ok ? '' : ` ${text}`}`)
    if (!res.ok) throw new MedusaHttpError(method, path, res.status, text)
    return JSON.parse(text) as T
  }
}

export async function login (client: MedusaClient, actor: 'user' | 'customer', email: string, password: string): Promise<string> {
  const { token } = await client.post<{ token: string }>(`/auth/${actor}/emailpass`, { email, password })
  return token
}
