import type { FastifyBaseLogger } from 'fastify'
import { addressOf, type OutboundMessage, type SendBody } from './messages.ts'

// Where the sender delivers what waits in the outboxes: a transport, either the provider's send API (its client,
// provider.ts) or, without CHAT_API_BASE_URL, the dev outbox that the terminal simulator reads.

/** A reply waiting in a phone's outbox. The id (inbound message id and position) makes a re-send recognisable. */
export interface OutboxEntry {
  id: string
  phone: string
  /** The conversation's club when the reply was made: who may see it as a dead letter. */
  tenantId: string | undefined
  /** Epoch ms when the turn queued it: the send horizon counts from here. */
  at: number
  body: SendBody
  /** Who wrote it when not the bot: `staff:<user id>` or `system` (the history and the simulator show it). */
  author?: string
  /** An update sent as text: the club's template for it, sent instead should the 24-hour window turn out closed. */
  template?: OutboundMessage
}

export type Delivery =
  /** `messageId`: the provider's id of the message (`messages[0].id` of its answer), which its status events name */
  | { kind: 'ok', messageId?: string }
  /** Worth trying again: 5xx, a timeout or a network failure. */
  | { kind: 'retry', reason: string, retryAfterMs: number | undefined }
  /**
   * Over the provider's pace (429 or a throttling error code): not the reply's fault. `number`: the business
   * number's rate (hold every send from it); `phone`: the pair of number and recipient (hold that phone only).
   */
  | { kind: 'throttled', scope: 'number' | 'phone', reason: string, retryAfterMs: number | undefined }
  /**
   * The provider will never take it (4xx other than 429). `windowClosed`: its code was 131047, the member's 24-hour
   * window is closed and only a template can reach them.
   */
  | { kind: 'refused', reason: string, windowClosed?: true }
  /** The fence said no before the first byte of the request was written: nothing reached the provider. */
  | { kind: 'fenced' }

/**
 * True while the sender may still put this reply on the wire (it holds the phone's lease). Asked as late as the
 * transport can: right before the request's first byte is written, after any wait for a connection.
 */
export type SendFence = () => boolean

export interface Transport {
  deliver (entry: OutboxEntry, signal: AbortSignal, fence?: SendFence): Promise<Delivery>
}

export interface DevOutboxEntry {
  seq: number
  at: number
  body: SendBody
  author: string
}

const PER_PHONE = 200
const PHONES = 1_000

/** The last replies per phone, in memory, for the simulator (one process; development only): the transport without a provider. */
export class DevOutbox implements Transport {
  private seq = 0
  private readonly byPhone = new Map<string, DevOutboxEntry[]>()

  constructor (private readonly log: FastifyBaseLogger) {}

  async deliver (entry: OutboxEntry, _signal?: AbortSignal, fence?: SendFence): Promise<Delivery> {
    if (fence && !fence()) return { kind: 'fenced' }
    this.push(entry.body, entry.author)
    this.log.debug({ type: entry.body.type }, 'chat reply kept for the local simulator (no CHAT_API_BASE_URL)')
    return { kind: 'ok' }
  }

  private push (body: SendBody, author = 'bot'): void {
    const address = addressOf(body)
    const entries = this.byPhone.get(address) ?? []
    this.byPhone.delete(address)
    entries.push({ seq: ++this.seq, at: Date.now(), body, author })
    if (entries.length > PER_PHONE) entries.shift()
    this.byPhone.set(address, entries)
    const oldest = this.byPhone.keys().next().value
    if (this.byPhone.size > PHONES && oldest !== undefined) this.byPhone.delete(oldest)
  }

  /** Entries of an address (a phone or a business-scoped user id) after sequence number `after`. */
  list (phone: string, after = 0): DevOutboxEntry[] {
    return (this.byPhone.get(phone) ?? []).filter((e) => e.seq > after)
  }
}
