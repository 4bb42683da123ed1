import type { FastifyBaseLogger } from 'fastify'
import { botSilent, requestHandoff, takeOver, timedOut, type Handoff } from '../../../machines/handoff.ts'
import type { Locale } from '../../../machines/conversation.types.ts'
import { conflict, notFound } from '../../errors.ts'
import type { NotificationService } from '../../notifications/service.ts'
import type { TenantStore } from '../../tenants/store.ts'
import type { LinkedAccountStore } from '../linking/types.ts'
import type { InboundMessage } from '../inbound.ts'
import { sendBodyFor, type OutboundMessage, type SendBody } from '../outbound/messages.ts'
import type { OutboxEntry } from '../outbound/transport.ts'
import { COPY } from '../replies/copy.ts'
import type { Author, ChatStore, HistoryMessage, Recorded } from '../store/index.ts'
import { HandoffDeadlines } from './handoff-deadlines.ts'
import type { Conversation, InboxStore } from './store.ts'
import { insideReplyWindow } from '../reply-window.ts'
import { sessionFields, type SessionFields } from '../session-fields.ts'
import type { Failure, Receipt } from '../provider/receipts.ts'

// Staff in the loop: the history of each conversation, the handoff flag (machines/handoff.ts) and what staff
// do with a conversation. Every message staff or the system send goes through the phone's outbox, behind the
// bot's replies, so it is as durable and ordered as theirs; the history records it as it is queued.

export interface ActivityEvent {
  phone: string
  kind: 'message' | 'handoff'
  message?: HistoryMessage
  handoff?: Handoff | null
}

export interface InboxDeps {
  store: InboxStore
  chat: ChatStore
  tenants: TenantStore
  linkedAccounts: Pick<LinkedAccountStore, 'list'>
  notifications: NotificationService
  clock: () => number
  handoffTimeoutMs: number
  log: FastifyBaseLogger
  /** Replies were queued for the phone: the sender should look. */
  queued: (phone: string) => void
  /** Something happened in a club's conversation (the live stream). */
  activity: (tenantId: string, event: ActivityEvent) => void
  /** The provider's receipts of replies sent to the phone, by reply id (src/chat/receipts). */
  receipts: (phone: string, replyIds: readonly string[]) => Promise<Map<string, Receipt>>
}

/** The history type of the note that an update failed on its way: its `choice` names the reply that failed. */
const DELIVERY_FAILED = 'delivery-failed'

/** A history message with, for a reply the service sent, what the provider last said of it. */
export type ShownMessage = HistoryMessage & { receipt?: Receipt }

/** What a message says, for a person reading the history. */
function readable (body: SendBody): { text: string, choice?: string } {
  if (body.type === 'text') return { text: body.text.body }
  if (body.type === 'template') {
    const params = (body.template.components ?? []).flatMap((c) => c.parameters.map((x) => x.text))
    return { text: `[template ${body.template.name}] ${params.join(' | ')}`.trim() }
  }
  const i = body.interactive
  const options = i.type === 'button'
    ? i.action.buttons.map((b) => b.reply.title)
    : i.type === 'list' ? i.action.sections.flatMap((s) => s.rows.map((r) => r.title)) : []
  return { text: options.length > 0 ? `${i.body.text}\n[${options.join(' | ')}]` : i.body.text }
}

function inboundHistory (message: InboundMessage): HistoryMessage {
  const base = { id: message.id, at: message.receivedAt, direction: 'in' as const, author: 'member' as const }
  switch (message.input.kind) {
    // a voice note is kept as one, with what its transcript said
    case 'text': return { ...base, type: message.input.voice ? 'voice' : 'text', text: message.input.text }
    case 'reply': return { ...base, type: 'interactive', text: message.input.title, choice: message.input.id }
    case 'unsupported': return { ...base, type: message.input.messageType, text: '' }
    case 'linked': return { ...base, type: 'flow', text: '' }
  }
}

function outboundHistory (entry: OutboxEntry, author: Author): HistoryMessage {
  return { id: entry.id, at: entry.at, direction: 'out', author, type: entry.body.type, ...readable(entry.body) }
}

export class ChatInbox {
  constructor (private readonly deps: InboxDeps) {}

  private async record (phone: string, tenantId: string, messages: HistoryMessage[]): Promise<void> {
    await this.deps.store.record(phone, tenantId, messages)
    this.announce(phone, { tenantId, messages })
  }

  private announce (phone: string, { tenantId, messages }: Recorded): void {
    for (const message of messages) this.deps.activity(tenantId, { phone, kind: 'message', message })
  }

  /**
   * Queues messages to a phone behind what is already in its outbox, and records them with their author: the
   * way staff and the system (order updates) write to a member. `key` makes the entries' ids (a re-send is
   * recognisable by the provider).
   */
  async say (phone: string, tenantId: string, author: Author, messages: OutboundMessage[], key: string): Promise<HistoryMessage[]> {
    const at = this.deps.clock()
    const entries: OutboxEntry[] = messages.map((m, i) => ({
      id: `${key}:${i}`, phone, tenantId, at, body: sendBodyFor(phone, m), ...(author === 'bot' ? {} : { author })
    }))
    await this.deps.chat.enqueue(phone, entries.map((e) => JSON.stringify(e)))
    this.deps.queued(phone)
    const recorded = entries.map((e) => outboundHistory(e, author))
    await this.record(phone, tenantId, recorded)
    return recorded
  }

  /** A system message (an order update) queued by another part of the service. */
  async recordSystem (entry: OutboxEntry): Promise<void> {
    if (entry.tenantId) await this.record(entry.phone, entry.tenantId, [outboundHistory(entry, 'system')])
  }

  /** What a turn records (the member's message and the bot's replies, its outbox entries): its commit writes it. */
  turnRecord (message: InboundMessage, tenantId: string | undefined, replies: readonly OutboxEntry[]): Recorded | undefined {
    if (!tenantId) return undefined
    return { tenantId, messages: [inboundHistory(message), ...replies.map((entry) => outboundHistory(entry, 'bot'))] }
  }

  /**
   * The club's index and live activity of a turn being committed: called in the same tick as the commit, so that
   * they go out in its socket write (they have other hash tags); not awaited.
   */
  committing (phone: string, recorded: Recorded): void {
    this.deps.store.index(phone, recorded).catch((err: Error) => { this.deps.log.warn({ err }, 'chat conversation index not updated') })
    this.announce(phone, recorded)
  }

  /** What the turn of a phone whose session is with this club does about the club's handoff. */
  async gate (phone: string, tenantId: string, now: number): Promise<'silent' | 'bot' | 'timed-out'> {
    const flag = await this.deps.store.handoffOf(tenantId, phone)
    if (botSilent(flag, now)) return 'silent'
    if (timedOut(flag, now) && await this.deps.store.setHandoff(tenantId, phone, flag, undefined)) {
      this.deps.activity(tenantId, { phone, kind: 'handoff', handoff: null })
      return 'timed-out'
    }
    return 'bot'
  }

  /** The member asks for a person: flag the conversation, tell the club's staff; the words for the member. */
  async request (phone: string, doc: string | undefined, now: number): Promise<string> {
    const session = sessionFields(doc)
    const tenantId = session.tenantId as string
    const { locale, club, hours } = await this.wording(tenantId, session)
    const flag = await this.deps.store.handoffOf(tenantId, phone)
    const next = requestHandoff(flag, now, this.deps.handoffTimeoutMs)
    if (next !== flag && await this.deps.store.setHandoff(tenantId, phone, flag, next)) {
      if (next.status === 'requested') this.deadlines?.requested(phone, next.deadline)
      this.deps.activity(tenantId, { phone, kind: 'handoff', handoff: next })
      await this.notifyStaff(tenantId, phone)
    }
    return COPY[locale].handoff.requested(club, hours)
  }

  /** The member's language, the club's name and its opening hours (the pickup hours of the club's settings). */
  private async wording (tenantId: string, session: SessionFields = {}): Promise<{ locale: Locale, club: string, hours: string | undefined }> {
    const tenant = await this.deps.tenants.get(tenantId)
    const account = session.accounts?.find((a) => a.tenantId === tenantId)
    return { locale: account?.locale ?? tenant?.locale ?? 'es', club: account?.tenantName ?? tenant?.name ?? tenantId, hours: tenant?.pickup?.hours }
  }

  private async notifyStaff (tenantId: string, phone: string, notice = {
    event: 'chat.handoff.requested',
    title: 'A member asks for a person',
    body: `The chat member ${phone} asked to talk to a person.`,
  }): Promise<void> {
    for (const role of ['admin', 'grower'] as const) {
      try {
        await this.deps.notifications.broadcast({
          tenantId,
          recipientRole: role,
          domain: 'system',
          ...notice,
          severity: 'warning',
          source: 'event',
          actionUrl: `/api/chat/conversations/${phone}`,
          resourceId: phone,
          resourceType: 'chat-conversation',
        })
      } catch (err) {
        this.deps.log.warn({ err, role, event: notice.event }, 'chat staff notification failed')
      }
    }
  }

  /**
   * An update the member must get failed on its way while the window is open (no template is needed, and a text
   * sent again might fail alike): a person of the club has to act. A note in the club's conversation moves it up
   * the staff's list with the provider's reason (live to open consoles), and the club's staff are notified.
   */
  async deliveryFailed (phone: string, tenantId: string, failed: { replyId: string, update?: string, failure: Failure }): Promise<void> {
    const { failure } = failed
    const reason = `${failure.title}${failure.code === undefined ? '' : ` (${failure.code})`}`
    const note: HistoryMessage = {
      id: `${failed.replyId}:failed`,
      at: this.deps.clock(),
      direction: 'out',
      author: 'system',
      type: DELIVERY_FAILED,
      text: `Not delivered to the member${failed.update ? ` (${failed.update})` : ''}: ${reason}`,
      choice: failed.replyId,
    }
    await this.record(phone, tenantId, [note])
    await this.notifyStaff(tenantId, phone, {
      event: 'chat.delivery.failed',
      title: 'A chat update did not reach the member',
      body: `An update to the chat member ${phone} was not delivered: ${reason}.`,
    })
  }

  /** The apology for a request nobody took, in the club's words (queued by the turn, or at its deadline: handoff-deadlines.ts). */
  async apology (tenantId: string, doc?: string): Promise<string> {
    return COPY[(await this.wording(tenantId, sessionFields(doc))).locale].handoff.timedOut
  }

  /** The phone's linked accounts as a session would name them: the member's chosen language outside a turn. */
  private async linked (phone: string): Promise<SessionFields> {
    return { accounts: await this.deps.linkedAccounts.list(phone) }
  }

  private deadlines: HandoffDeadlines | undefined

  /**
   * Hands back the requests nobody took with an apology at their deadlines (a phone that writes first is handed
   * back by its turn): handoff-deadlines.ts, called by an instance running the lanes.
   */
  startExpiry (shards: number): void {
    this.deadlines ??= new HandoffDeadlines({
      store: this.deps.store, expire: async (shard) => await this.expireDue(shard), shards, clock: this.deps.clock, log: this.deps.log
    })
    this.deadlines.start()
  }

  /** Every shard's next deadline read again: at every sweep of every shard, when some may have been set unseen. */
  readDeadlines (): void { this.deadlines?.readAll() }

  stopExpiry (): void { this.deadlines?.stop() }

  /** Hands back every request of the shard nobody took in time, with the apology. */
  async expireDue (shard: number): Promise<number> {
    const now = this.deps.clock()
    let done = 0
    for (const { tenantId, phone } of await this.deps.store.dueHandoffs(shard, now, 100)) {
      const flag = await this.deps.store.handoffOf(tenantId, phone)
      if (!timedOut(flag, now) || !await this.deps.store.setHandoff(tenantId, phone, flag, undefined)) continue
      this.deps.activity(tenantId, { phone, kind: 'handoff', handoff: null })
      const { locale } = await this.wording(tenantId, await this.linked(phone))
      await this.say(phone, tenantId, 'bot', [{ type: 'text', text: { body: COPY[locale].handoff.timedOut } }], `handoff-timeout:${flag?.at ?? now}`)
      done++
    }
    return done
  }

  // --- staff ---

  /** The club's conversation with the phone; 404 when it has none (whatever another club has with the phone). */
  /** Erases the club's conversation with the phone (a member's data erased on request); false when there was none. */
  async forget (tenantId: string, phone: string): Promise<boolean> {
    return await this.deps.store.forget(tenantId, phone)
  }

  async owned (tenantId: string, phone: string): Promise<Conversation> {
    const c = await this.deps.store.conversation(tenantId, phone)
    if (!c) throw notFound('Conversation')
    return c
  }

  async list (tenantId: string, q: { offset: number, limit: number, needsPerson: boolean }): Promise<{ conversations: Conversation[], total: number }> {
    const now = this.deps.clock()
    // the filter reads the club's latest conversations (an index by last activity) and keeps those waiting
    const window = q.needsPerson ? 1_000 : q.limit
    const phones = await this.deps.store.clubPhones(tenantId, q.needsPerson ? 0 : q.offset, window)
    // a phone with no record yet is left out: the index is written beside the commit that makes the record
    // (gone records leave the index with their time)
    const found = await Promise.all(phones.map(async (p) => await this.deps.store.conversation(tenantId, p)))
    const mine = found.filter((c): c is Conversation => c !== undefined)
    if (!q.needsPerson) return { conversations: mine, total: await this.deps.store.clubSize(tenantId) }
    const waiting = mine.filter((c) => c.handoff?.status === 'requested' && !timedOut(c.handoff, now))
    return { conversations: waiting.slice(q.offset, q.offset + q.limit), total: waiting.length }
  }

  async messages (tenantId: string, phone: string, offset: number, limit: number): Promise<ShownMessage[]> {
    await this.owned(tenantId, phone)
    const messages = await this.deps.store.history(tenantId, phone, offset, limit)
    if (offset === 0) await this.deps.store.markRead(tenantId, phone)
    const receipts = await this.deps.receipts(phone, messages.filter((m) => m.direction === 'out').map((m) => m.id))
    return messages.map((m) => {
      const receipt = receipts.get(m.id)
      return receipt ? { ...m, receipt } : m
    })
  }

  async takeOver (tenantId: string, phone: string, staffId: string): Promise<Handoff> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const c = await this.owned(tenantId, phone)
      const result = takeOver(c.handoff, staffId, this.deps.clock())
      if (result.kind === 'held') throw conflict(`This conversation is already taken over by ${result.by}`, { heldBy: result.by })
      if (result.flag === c.handoff) return result.flag
      if (await this.deps.store.setHandoff(tenantId, phone, c.handoff, result.flag)) {
        this.deps.activity(tenantId, { phone, kind: 'handoff', handoff: result.flag })
        return result.flag
      }
    }
    throw conflict('The conversation changed while taking it over; try again')
  }

  /** Staff write to the member: taken over first (the bot stays quiet), only within the provider's window. */
  async send (tenantId: string, phone: string, staffId: string, text: string, key: string): Promise<HistoryMessage> {
    const c = await this.owned(tenantId, phone)
    const now = this.deps.clock()
    if (!insideReplyWindow(c.lastInboundAt, now)) {
      throw conflict('The member wrote more than 24 hours ago: the provider takes only a template message now, not free text', {
        lastInboundAt: c.lastInboundAt === undefined ? null : new Date(c.lastInboundAt).toISOString()
      })
    }
    await this.takeOver(tenantId, phone, staffId)
    const [sent] = await this.say(phone, tenantId, `staff:${staffId}`, [{ type: 'text', text: { body: text } }], key)
    return sent as HistoryMessage
  }

  /** The bot takes the conversation back where the member stands, and says so. Handing back twice is harmless. */
  async handBack (tenantId: string, phone: string): Promise<void> {
    const c = await this.owned(tenantId, phone)
    if (!c.handoff || !await this.deps.store.setHandoff(tenantId, phone, c.handoff, undefined)) return
    this.deps.activity(tenantId, { phone, kind: 'handoff', handoff: null })
    const { locale } = await this.wording(tenantId, await this.linked(phone))
    await this.say(phone, tenantId, 'bot', [{ type: 'text', text: { body: COPY[locale].handoff.back } }], `handback:${c.handoff.at}`)
  }
}
