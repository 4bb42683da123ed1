import { getGlobalDispatcher, type Dispatcher } from 'undici'
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

/** What a send's call ends with: the provider's answer, or why there is none. */
interface Answer { statusCode: number, headers: Record<string, string | string[] | undefined>, text: string }

/**
 * One send on the wire, as undici's handler of it: the request is dispatched straight to the dispatcher (no
 * response stream, no AbortSignal, no interceptor composed per send) and its answer gathered here.
 *
 * The fence is asked when undici starts the request on a connection: synchronously before it writes the request's
 * bytes to the socket (undici's client-h1 calls onRequestStart, then writes the head and body), so after any wait
 * for a connection to open or to come free. Said no, the request is aborted before a byte leaves.
 *
 * Its timeout lets an answer already on the socket win. After a stall of the event loop (a process paused with
 * SIGSTOP, a long synchronous stretch), the timers phase runs before the poll phase reads the sockets, so a plain
 * timer would abort sends whose answers arrived meanwhile, and the reply the provider took would be sent again.
 * Due, it aborts only after a setImmediate: the check phase comes after this loop turn's poll phase, which reads what
 * is waiting (and one more turn, should the body come after the head).
 */
class Call implements Dispatcher.DispatchHandler {
  timedOut = false
  private statusCode = 0
  private headers: Answer['headers'] = {}
  private readonly chunks: Buffer[] = []
  private controller: Dispatcher.DispatchController | undefined
  /** Aborted before undici started the request: it is aborted as it starts. */
  private reason: Error | undefined
  private settled = false
  private readonly timer: NodeJS.Timeout
  private immediate: NodeJS.Immediate | undefined
  private ticks = 0

  constructor (
    private readonly fence: SendFence | undefined,
    private readonly timeoutMs: number,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (err: Error) => void
  ) {
    this.timer = setTimeout(tick, timeoutMs, this)
  }

  onRequestStart (controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.reason) controller.abort(this.reason)
    else if (this.fence && !this.fence()) controller.abort(new Fenced('the send fence said no before the request was written'))
  }

  onResponseStart (_controller: Dispatcher.DispatchController, statusCode: number, headers: Answer['headers']): void {
    this.statusCode = statusCode
    this.headers = headers
  }

  onResponseData (_controller: Dispatcher.DispatchController, chunk: Buffer): void { this.chunks.push(chunk) }

  onResponseEnd (): void {
    if (!this.end()) return
    const text = (this.chunks.length === 1 ? this.chunks[0] : undefined)?.toString() ?? Buffer.concat(this.chunks).toString()
    this.resolve({ statusCode: this.statusCode, headers: this.headers, text })
  }

  onResponseError (_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.end()) this.reject(err)
  }

  /** Aborts the call: at once when undici started it, else as it starts (as undici's own signal handling does). */
  abort (reason: Error): void {
    if (this.settled) return
    if (this.controller) this.controller.abort(reason)
    else this.reason ??= reason
  }

  /** The timer fired (the first tick): the answer may be waiting unread; two loop turns later, abort unless it was read. */
  tick (): void {
    if (++this.ticks < 3) this.immediate = setImmediate(tick, this)
    else this.overdue()
  }

  private overdue (): void {
    this.timedOut = true
    this.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError'))
  }

  private end (): boolean {
    if (this.settled) return false
    this.settled = true
    clearTimeout(this.timer)
    if (this.immediate) clearImmediate(this.immediate)
    return true
  }
}

// the call itself as the timer's and the immediates' argument: no closure per send
const tick = (call: Call): void => { call.tick() }

/** The sends in flight by the signal that cuts them short (the sender's shutdown): one listener per signal, not per send. */
const inFlight = new WeakMap<AbortSignal, Set<Call>>()

function watch (signal: AbortSignal, call: Call): void {
  if (signal.aborted) {
    call.abort(signal.reason as Error)
    return
  }
  let calls = inFlight.get(signal)
  if (!calls) {
    const watched = new Set<Call>()
    inFlight.set(signal, watched)
    signal.addEventListener('abort', () => { for (const c of watched) c.abort(signal.reason as Error) }, { once: true })
    calls = watched
  }
  calls.add(call)
}

/** The transport to the provider's send API. */
export class ProviderClient implements Transport {
  private readonly origin: string
  private readonly path: string
  private readonly authorization: string

  constructor (private readonly options: ProviderClientOptions) {
    const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`)
    this.origin = url.origin
    this.path = url.pathname + url.search
    this.authorization = `Bearer ${options.apiKey}`
  }

  async deliver ({ body, id: idempotencyKey }: OutboxEntry, signal?: AbortSignal, fence?: SendFence): Promise<Delivery> {
    let call: Call | undefined
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        call = new Call(fence, this.options.timeoutMs, resolve, reject)
        if (signal) watch(signal, call)
        ;(this.options.dispatcher ?? getGlobalDispatcher()).dispatch({
          origin: this.origin,
          path: this.path,
          method: 'POST',
          headers: { authorization: this.authorization, 'content-type': 'application/json', 'x-idempotency-key': idempotencyKey },
          body: JSON.stringify(body),
        }, call)
      })
      const { statusCode, headers, text } = answer
      if (statusCode < 300) {
        const messageId = messageIdOf(text)
        return messageId ? { kind: 'ok', messageId } : { kind: 'ok' }
      }
      // the provider's own words help an admin reading the dead letter; the key is cut out should it echo it
      const reason = `provider answered ${statusCode}: ${text.replaceAll(this.options.apiKey, '[redacted]').slice(0, 200)}`
      const retryAfter = retryAfterMs(headers['retry-after'])
      const throttled = statusCode === 429 ? 'number' : throttlingScope(text)
      if (throttled) return { kind: 'throttled', scope: throttled, reason, retryAfterMs: retryAfter }
      const errorClass = classifyError({ httpStatus: statusCode, code: errorCodeOf(text) })
      if (errorClass === 'transient') return { kind: 'retry', reason, retryAfterMs: retryAfter }
      return errorClass === 'window-closed' ? { kind: 'refused', reason, windowClosed: true } : { kind: 'refused', reason }
    } catch (err) {
      if (err instanceof Fenced) return { kind: 'fenced' }
      const reason = call?.timedOut === true ? `no answer within ${this.options.timeoutMs} ms` : (err as Error).message
      return { kind: 'retry', reason, retryAfterMs: undefined }
    } finally {
      if (signal && call) inFlight.get(signal)?.delete(call)
    }
  }
}
