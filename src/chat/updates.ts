import type { FastifyBaseLogger } from 'fastify'
import type { NotifyInput } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'
import type { TenantStore } from '../tenants/store.ts'
import type { LinkedAccountStore } from './linking/types.ts'
import type { OutboxEntry } from './outbound/transport.ts'
import { sendBodyFor, type OutboundMessage } from './outbound/messages.ts'
import { UPDATE_COPY, type UpdateKind } from './replies/updates-copy.ts'
import type { ChatStore } from './store/index.ts'
import { insideReplyWindow } from './reply-window.ts'

// Order updates and reminders in the chat. The in-app notice is the source: each member notice of a known event
// is also queued, through the phone's outbox, to every phone linked to that member of the club that has updates
// on, in the member's language. Inside the provider's 24-hour window (since the member last wrote) it is a text;
// outside it the club's template for the event. The notice's externalId (event, order) names the chat message
// too, so the same event twice (a retried step, racing instances) is queued once per phone.

/** The notice event behind each update, and the template it falls back to (docs/chat.md, "Order updates"). */
const KINDS: Record<string, (n: NotifyInput) => UpdateKind | undefined> = {
  'order.shipped': (n) => n.metadata?.shippingMethod === 'pickup' ? 'order_ready_pickup' : 'order_shipped',
  'order.cancelled': () => 'order_canceled',
  'order.completed': () => 'order_completed',
  'appointment.reminder': () => 'appointment_reminder',
  'task.overdue': () => 'task_overdue',
  'batch.recalled': () => 'batch_recall',
  'membership.expiring': () => 'membership_expiring',
}

export interface UpdatesDeps {
  store: ChatStore
  linkedAccounts: LinkedAccountStore
  tenants: TenantStore
  clock: () => number
  log: FastifyBaseLogger
  /** A message was queued for the phone: wake its sender. */
  queued: (phone: string) => void
  /** A message was queued: the conversation history records it (src/chat/inbox). */
  recorded?: (entry: OutboxEntry) => void
}

export class ChatUpdates {
  constructor (private readonly deps: UpdatesDeps) {}

  /** Queues the notice's chat message to the member's phones; a notice of no known event, or no phone: nothing. */
  async onNotice (notice: NotifyInput): Promise<void> {
    const kind = KINDS[notice.event]?.(notice)
    if (!kind || !notice.externalId) return
    const { linkedAccounts, tenants } = this.deps
    const phones = await linkedAccounts.phonesOf(notice.tenantId, notice.recipientId)
    if (phones.length === 0) return
    const tenant = await tenants.get(notice.tenantId)
    if (!tenant) return
    for (const phone of phones) {
      const links = await linkedAccounts.links(phone)
      if (links.updatesOff.includes(tenant.id)) continue
      const account = links.accounts.find((a) => a.tenantId === tenant.id)
      const { message, template } = await this.message(phone, tenant, account?.locale ?? tenant.locale, kind, notice)
      await this.enqueue(phone, tenant.id, `${kind}:${notice.externalId}`, message, template)
    }
  }

  /**
   * Every system message goes through here: once per (phone, id), behind the phone's earlier replies. `template`:
   * what goes instead should the text meet a closed window (src/chat/sender.ts, and a `failed` receipt).
   */
  async enqueue (phone: string, tenantId: string, id: string, message: OutboundMessage, template?: OutboundMessage): Promise<boolean> {
    const at = this.deps.clock()
    const entry: OutboxEntry = {
      id: `system:${id}`,
      phone,
      tenantId,
      at,
      body: sendBodyFor(phone, message),
      author: 'system',
      ...(template && message.type !== 'template' ? { template } : {}),
    }
    const queued = await this.deps.store.enqueueSystem(phone, id, JSON.stringify(entry))
    if (queued) {
      this.deps.queued(phone)
      this.deps.recorded?.(entry)
    }
    return queued
  }

  /** The update's template, and what is sent: its text inside the window, else the template itself. */
  private async message (phone: string, tenant: Tenant, locale: 'es' | 'en', kind: UpdateKind, notice: NotifyInput): Promise<{
    message: OutboundMessage, template: OutboundMessage
  }> {
    const copy = UPDATE_COPY[locale]
    const displayId = typeof notice.metadata?.displayId === 'string' ? notice.metadata.displayId : ''
    const where = tenant.pickup ? copy.pickupAt(tenant.pickup.address, tenant.pickup.hours) : copy.pickupAtClub
    const validUntil = typeof notice.metadata?.validUntil === 'string' ? notice.metadata.validUntil : ''
    const params = kind === 'order_ready_pickup'
      ? [displayId, where]
      : kind.startsWith('order_') ? [displayId] : kind === 'membership_expiring' ? [validUntil] : [notice.body]
    const chosen = tenant.chatTemplates?.[kind]
    const template: OutboundMessage = {
      type: 'template',
      template: {
        name: chosen?.name ?? kind,
        language: { code: chosen?.language ?? locale },
        components: [{ type: 'body', parameters: params.map((text) => ({ type: 'text' as const, text })) }],
      },
    }
    const last = await this.deps.store.lastInbound(phone)
    if (insideReplyWindow(last, this.deps.clock())) return { message: { type: 'text', text: { body: copy.text[kind](params) } }, template }
    return { message: template, template }
  }

  /** An update's text that cannot reach the member (window closed): its template, queued once. */
  async sendTemplate (entry: Pick<OutboxEntry, 'id' | 'phone' | 'tenantId' | 'template'>): Promise<boolean> {
    if (!entry.template || !entry.tenantId) return false
    return await this.enqueue(entry.phone, entry.tenantId, `${entry.id.replace(/^system:/, '')}:template`, entry.template)
  }
}
