import type { FastifyBaseLogger } from 'fastify'
import { sendBodyFor, type OutboundMessage, type SendBody } from './messages.ts'
import { ProviderClient, type ProviderOptions } from './provider.ts'

// Where the bot's replies go: the provider's send API, or (without CHAT_API_BASE_URL) the log and the local
// outbox that the terminal simulator reads. Both check the provider's limits first.

export interface Messenger {
  /** True when the message was delivered (or kept for the simulator). Never throws. */
  send (phone: string, message: OutboundMessage): Promise<boolean>
}

export interface OutboxEntry {
  seq: number
  at: number
  body: SendBody
}

const PER_PHONE = 200
const PHONES = 1_000

/** The last replies per phone, in memory, for the simulator (one process; development only). */
export class DevOutbox {
  private seq = 0
  private readonly byPhone = new Map<string, OutboxEntry[]>()

  push (body: SendBody): void {
    const entries = this.byPhone.get(body.to) ?? []
    this.byPhone.delete(body.to)
    entries.push({ seq: ++this.seq, at: Date.now(), body })
    if (entries.length > PER_PHONE) entries.shift()
    this.byPhone.set(body.to, entries)
    const oldest = this.byPhone.keys().next().value
    if (this.byPhone.size > PHONES && oldest !== undefined) this.byPhone.delete(oldest)
  }

  /** Entries of a phone after sequence number `after`. */
  list (phone: string, after = 0): OutboxEntry[] {
    return (this.byPhone.get(phone) ?? []).filter((e) => e.seq > after)
  }
}

function checked (phone: string, message: OutboundMessage, log: FastifyBaseLogger): SendBody | undefined {
  try {
    return sendBodyFor(phone, message)
  } catch (err) {
    log.error({ err: { message: (err as Error).message }, type: message.type }, 'chat reply breaks a provider limit: not sent')
    return undefined
  }
}

export class ProviderMessenger implements Messenger {
  private readonly client: ProviderClient
  constructor (private readonly options: ProviderOptions) { this.client = new ProviderClient(options) }

  async send (phone: string, message: OutboundMessage) {
    const body = checked(phone, message, this.options.log)
    return body ? (await this.client.send(body)).ok : false
  }
}

export class LocalMessenger implements Messenger {
  constructor (private readonly outbox: DevOutbox, private readonly log: FastifyBaseLogger) {}

  async send (phone: string, message: OutboundMessage) {
    const body = checked(phone, message, this.log)
    if (!body) return false
    this.outbox.push(body)
    this.log.info({ to: phone, type: body.type }, 'chat reply (no CHAT_API_BASE_URL: kept for the local simulator)')
    return true
  }
}
