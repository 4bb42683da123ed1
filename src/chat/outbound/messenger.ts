import type { FastifyBaseLogger } from 'fastify'
import type { OutboundMessage, SendBody } from './messages.ts'
import { ProviderClient, type Delivery, type ProviderOptions } from './provider.ts'

// Where the sender delivers the bot's replies: the provider's send API, or (without CHAT_API_BASE_URL) the log
// and the local outbox that the terminal simulator reads.

/** What a turn says: collected into the outbox by the runtime, never sent inline. */
export interface Messenger {
  send (phone: string, message: OutboundMessage): Promise<void>
}

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
}

export interface Transport {
  deliver (entry: OutboxEntry, signal: AbortSignal): Promise<Delivery>
}

export interface DevOutboxEntry {
  seq: number
  at: number
  body: SendBody
  author: string
}

const PER_PHONE = 200
const PHONES = 1_000

/** The last replies per phone, in memory, for the simulator (one process; development only). */
export class DevOutbox {
  private seq = 0
  private readonly byPhone = new Map<string, DevOutboxEntry[]>()

  push (body: SendBody, author = 'bot'): void {
    const entries = this.byPhone.get(body.to) ?? []
    this.byPhone.delete(body.to)
    entries.push({ seq: ++this.seq, at: Date.now(), body, author })
    if (entries.length > PER_PHONE) entries.shift()
    this.byPhone.set(body.to, entries)
    const oldest = this.byPhone.keys().next().value
    if (this.byPhone.size > PHONES && oldest !== undefined) this.byPhone.delete(oldest)
  }

  /** Entries of a phone after sequence number `after`. */
  list (phone: string, after = 0): DevOutboxEntry[] {
    return (this.byPhone.get(phone) ?? []).filter((e) => e.seq > after)
  }
}

export class ProviderTransport implements Transport {
  private readonly client: ProviderClient
  constructor (options: ProviderOptions) { this.client = new ProviderClient(options) }

  async deliver (entry: OutboxEntry, signal: AbortSignal) { return await this.client.send(entry.body, entry.id, signal) }
}

export class LocalTransport implements Transport {
  constructor (private readonly outbox: DevOutbox, private readonly log: FastifyBaseLogger) {}

  async deliver (entry: OutboxEntry): Promise<Delivery> {
    this.outbox.push(entry.body, entry.author)
    this.log.debug({ type: entry.body.type }, 'chat reply kept for the local simulator (no CHAT_API_BASE_URL)')
    return { kind: 'ok' }
  }
}
