import { request, type Dispatcher } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import type { SendBody } from './messages.ts'

// The provider's send API: POST {base}/{phoneNumberId}/messages with the API key as Bearer. 429 and 5xx (and
// network failures) are retried with exponential backoff, honouring Retry-After, up to a bound; then the
// message is given up and logged. The key never reaches a log line.

export interface ProviderOptions {
  baseUrl: string
  phoneNumberId: string
  apiKey: string
  log: FastifyBaseLogger
  maxAttempts?: number
  baseDelayMs?: number
  /** The longest wait honoured, whatever Retry-After asks. */
  maxDelayMs?: number
  timeoutMs?: number
  dispatcher?: Dispatcher
}

export type SendOutcome = { ok: true, attempts: number } | { ok: false, attempts: number, status: number | undefined }

const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs (header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const retryable = (status: number) => status === 429 || status >= 500

export class ProviderClient {
  private readonly url: string
  private readonly maxAttempts: number
  private readonly baseDelayMs: number
  private readonly maxDelayMs: number
  private readonly timeoutMs: number

  constructor (private readonly options: ProviderOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`
    this.maxAttempts = options.maxAttempts ?? 4
    this.baseDelayMs = options.baseDelayMs ?? 250
    this.maxDelayMs = options.maxDelayMs ?? 10_000
    this.timeoutMs = options.timeoutMs ?? 10_000
  }

  private backoff (attempt: number, retryAfter: number | undefined): number {
    const exponential = this.baseDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() / 2)
    return Math.min(this.maxDelayMs, retryAfter ?? exponential)
  }

  async send (body: SendBody): Promise<SendOutcome> {
    let status: number | undefined
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      let retryAfter: number | undefined
      try {
        const res = await request(this.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          dispatcher: this.options.dispatcher,
        })
        status = res.statusCode
        const text = await res.body.text()
        if (status < 300) return { ok: true, attempts: attempt }
        if (!retryable(status)) {
          this.options.log.error({ status, to: body.to, type: body.type, provider: text.slice(0, 300) }, 'chat send refused by the provider')
          return { ok: false, attempts: attempt, status }
        }
        retryAfter = retryAfterMs(res.headers['retry-after'])
      } catch (err) {
        status = undefined
        this.options.log.warn({ err: { message: (err as Error).message }, attempt }, 'chat send failed')
      }
      if (attempt < this.maxAttempts) await sleep(this.backoff(attempt, retryAfter))
    }
    this.options.log.error({ status, to: body.to, type: body.type, attempts: this.maxAttempts }, 'chat send given up')
    return { ok: false, attempts: this.maxAttempts, status }
  }
}
