// The provider's refusals, sorted into the classes that are handled differently, from the error's code (never its
// text: Meta says titles will go). The same codes arrive in a send's answer and in a `failed` status event.

export type ErrorClass =
  /** 131056: too many messages to one recipient in a short time; hold that phone only (about one every 6 s). */
  | 'pair-rate'
  /** 131047: the 24-hour window is closed; only a template can reach the member now. */
  | 'window-closed'
  /** 130429, HTTP 429 and the account's call rates: slow the whole business number. */
  | 'throughput'
  /** The provider's own trouble (5xx, timeouts, 131000-style "try again"): send again later. */
  | 'transient'
  /** 131026 (undeliverable) and every other refusal: sending again cannot help. */
  | 'permanent'

const PAIR_RATE_LIMIT = 131056
const WINDOW_CLOSED = 131047

const THROUGHPUT = new Set([130429, 80007, 4])
// Meta's codes that say "something went wrong on our side, retry": unknown (1), service (2), generic (131000),
// service unavailable (131016), temporarily unavailable (133004)
const TRANSIENT = new Set([1, 2, 131000, 131016, 133004])

/** One refusal as either path reports it: the HTTP status of a send (absent for a status event) and Meta's code. */
export interface Refusal {
  httpStatus?: number
  code?: number
}

export function classifyError ({ httpStatus, code }: Refusal): ErrorClass {
  if (code === PAIR_RATE_LIMIT) return 'pair-rate'
  if (code === WINDOW_CLOSED) return 'window-closed'
  if (httpStatus === 429 || (code !== undefined && THROUGHPUT.has(code))) return 'throughput'
  if (code !== undefined && TRANSIENT.has(code)) return 'transient'
  if (code === undefined && (httpStatus === undefined || httpStatus >= 500)) return 'transient'
  return 'permanent'
}

/** The first error code of a Graph-style answer body (`{error: {code}}`), or undefined when there is none. */
export function errorCodeOf (body: string): number | undefined {
  let code: unknown
  try {
    code = (JSON.parse(body) as { error?: { code?: unknown } } | null)?.error?.code
  } catch {
    return undefined
  }
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined
}

/** What a reply becomes once the provider refused it or reported it failed. */
export type FailureOutcome =
  /** send the club's template for it instead (the window is closed) */
  | 'template'
  /** show it in the staff inbox as a failed delivery with the provider's reason */
  | 'inbox'
  /** a dead letter with the reason (the send was refused) */
  | 'dead-letter'
  /** kept in the history as failed, with the reason (it was sent, and failed on the way) */
  | 'history'

/**
 * A reply that failed for good. `refused`: the send's answer said no; `failed`: a status event said so later.
 * An update the member must get (order ready, canceled, recalled, membership expiring) becomes its template when
 * the window is closed, and is shown to staff otherwise; a conversational reply refused is a dead letter with the
 * reason, one that failed on the way stays failed in the history (a template would answer a question nobody asks
 * any more). A refusal that no template can mend (131026, any other permanent one) is a dead letter at once.
 */
export function failureOutcome (
  input: { kind: 'update' | 'reply', source: 'refused' | 'failed', windowOpen: boolean, errorClass: ErrorClass | undefined }
): FailureOutcome {
  const { kind, source, windowOpen, errorClass } = input
  if (source === 'refused' && errorClass === 'permanent') return 'dead-letter'
  if (kind === 'reply') return source === 'refused' ? 'dead-letter' : 'history'
  if (errorClass === 'window-closed' || !windowOpen) return 'template'
  return 'inbox'
}
