import { getGlobalDispatcher, request, type Dispatcher } from 'undici'
import { classifyError, errorCodeOf } from '../provider/error-classes.ts'
import type { Delivery, OutboxEntry, SendFence, Transport } from './transport.ts'

// The provider's send API: POST {base}/{phoneNumberId}/messages with the API key as Bearer and the outbox
// entry's id as X-Idempotency-Key, so that a re-send after a crash is recognisable. One attempt per call, with
// a timeout; the sender (src/chat/sender.ts) decides on retries. The key never reaches a log line.

export interface ProviderClientOptions {
  baseUrl: string
  phoneNumberId: string
  apiKey: string
  timeoutMs: number
  dispatcher?: Dispatcher
}

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs (header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * Which throttle an answer is, from its error code whatever the HTTP status (src/chat/provider/error-classes.ts):
 * the number's throughput (130429, the account's or the app's call rate) or one recipient's pair rate (131056).
 */
function throttlingScope (body: string): 'number' | 'phone' | undefined {
  const code = errorCodeOf(body)
  if (code === undefined) return undefined
  const errorClass = classifyError({ code })
  if (errorClass === 'throughput') return 'number'
  return errorClass === 'pair-rate' ? 'phone' : undefined
}

/** The message id of a send's answer (`{messages: [{id}]}`, the provider's and Meta's alike), if it has one. */
function messageIdOf (answer: string): string | undefined {
  try {
    const id = (JSON.parse(answer) as { messages?: Array<{ id?: unknown }> } | null)?.messages?.[0]?.id
    return typeof id === 'string' && id.length > 0 && id.length <= 256 ? id : undefined
  } catch {
    return undefined
  }
}

/** The request was not written: the fence said no when undici was about to write it. */
class Fenced extends Error {}

/**
 * Asks the fence when undici starts the request on a connection: synchronously before it writes the request's
 * bytes to the socket (undici's client-h1 calls onRequestStart, then writes the head and body), so after any wait
 * for a connection to open or to come free. Said no, the request is aborted before a byte leaves.
 */
function fenceInterceptor (fence: SendFence): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, {
    onRequestStart: (controller, context) => {
      if (!fence()) {
        controller.abort(new Fenced('the send fence said no before the request was written'))
        return
      }
      handler.onRequestStart?.(controller, context)
    },
    onRequestUpgrade: (controller, statusCode, headers, socket) => { handler.onRequestUpgrade?.(controller, statusCode, headers, socket) },
    onResponseStart: (controller, statusCode, headers, statusMessage) => { handler.onResponseStart?.(controller, statusCode, headers, statusMessage) },
    onResponseData: (controller, chunk) => { handler.onResponseData?.(controller, chunk) },
    onResponseEnd: (controller, trailers) => { handler.onResponseEnd?.(controller, trailers) },
    onResponseError: (controller, error) => { handler.onResponseError?.(controller, error) },
  })
}

/**
 * A send's timeout that lets an answer already on the socket win. After a stall of the event loop (a process
 * paused with SIGSTOP, a long synchronous stretch), the timers phase runs before the poll phase reads the sockets,
 * so a plain timer would abort sends whose answers arrived meanwhile, and the reply the provider took would be
 * sent again. Due, it aborts only after a setImmediate: the check phase comes after this loop turn's poll phase,
 * which reads what is waiting (and one more turn, should the body come after the head).
 */
function answerTimeout (ms: number): { signal: AbortSignal, readonly aborted: boolean, clear: () => void } {
  const controller = new AbortController()
  let immediate: NodeJS.Immediate | undefined
  const abort = () => { controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')) }
  const timer = setTimeout(() => { immediate = setImmediate(() => { immediate = setImmediate(abort) }) }, ms)
  return {
    signal: controller.signal,
    get aborted () { return controller.signal.aborted },
    clear: () => { clearTimeout(timer); if (immediate) clearImmediate(immediate) },
  }
}

/** The transport to the provider's send API. */
export class ProviderClient implements Transport {
  private readonly url: string

  constructor (private readonly options: ProviderClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`
  }

  async deliver ({ body, id: idempotencyKey }: OutboxEntry, signal?: AbortSignal, fence?: SendFence): Promise<Delivery> {
    const timeout = answerTimeout(this.options.timeoutMs)
    const dispatcher = fence ? (this.options.dispatcher ?? getGlobalDispatcher()).compose(fenceInterceptor(fence)) : this.options.dispatcher
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json', 'x-idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
        dispatcher,
      })
      const text = await res.body.text()
      if (res.statusCode < 300) {
        const messageId = messageIdOf(text)
        return messageId ? { kind: 'ok', messageId } : { kind: 'ok' }
      }
      // the provider's own words help an admin reading the dead letter; the key is cut out should it echo it
      const reason = `provider answered ${res.statusCode}: ${text.replaceAll(this.options.apiKey, '[redacted]').slice(0, 200)}`
      const retryAfter = retryAfterMs(res.headers['retry-after'])
      const throttled = res.statusCode === 429 ? 'number' : throttlingScope(text)
      if (throttled) return { kind: 'throttled', scope: throttled, reason, retryAfterMs: retryAfter }
      const errorClass = classifyError({ httpStatus: res.statusCode, code: errorCodeOf(text) })
      if (errorClass === 'transient') return { kind: 'retry', reason, retryAfterMs: retryAfter }
      return errorClass === 'window-closed' ? { kind: 'refused', reason, windowClosed: true } : { kind: 'refused', reason }
    } catch (err) {
      if (err instanceof Fenced) return { kind: 'fenced' }
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs} ms` : (err as Error).message
      return { kind: 'retry', reason, retryAfterMs: undefined }
    } finally {
      timeout.clear()
    }
  }
}
