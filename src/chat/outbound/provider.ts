import { request, type Dispatcher } from 'undici'
import type { SendBody } from './messages.ts'

// The provider's send API: POST {base}/{phoneNumberId}/messages with the API key as Bearer and the outbox
// entry's id as X-Idempotency-Key, so that a re-send after a crash is recognisable. One attempt per call, with
// a timeout; the sender (src/chat/sender.ts) decides on retries. The key never reaches a log line.

export interface ProviderOptions {
  baseUrl: string
  phoneNumberId: string
  apiKey: string
  timeoutMs: number
  dispatcher?: Dispatcher
}

export type Delivery =
  | { kind: 'ok' }
  /** Worth trying again: 429, 5xx, a timeout or a network failure. */
  | { kind: 'retry', reason: string, retryAfterMs: number | undefined }
  /** The provider will never take it (4xx other than 429). */
  | { kind: 'refused', reason: string }

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs (header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

export class ProviderClient {
  private readonly url: string

  constructor (private readonly options: ProviderOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`
  }

  async send (body: SendBody, idempotencyKey: string, signal?: AbortSignal): Promise<Delivery> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs)
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json', 'x-idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        dispatcher: this.options.dispatcher,
      })
      const text = await res.body.text()
      if (res.statusCode < 300) return { kind: 'ok' }
      // the provider's own words help an admin reading the dead letter; the key is cut out should it echo it
      const reason = `provider answered ${res.statusCode}: ${text.replaceAll(this.options.apiKey, '[redacted]').slice(0, 200)}`
      if (res.statusCode === 429 || res.statusCode >= 500) return { kind: 'retry', reason, retryAfterMs: retryAfterMs(res.headers['retry-after']) }
      return { kind: 'refused', reason }
    } catch (err) {
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs} ms` : (err as Error).message
      return { kind: 'retry', reason, retryAfterMs: undefined }
    }
  }
}
