import { z } from 'zod'
import { authorOf } from './provider/identity.ts'
import { mediaContent, type MediaKind } from './provider/media.ts'
import type { StatusUpdate } from './provider/receipts.ts'
import { readStatusEvent, STATUS_EVENTS } from './provider/status-events.ts'

// The webhook's body (one event, or a batch) read into one message per member input and the status events of
// the replies sent. Extra provider fields are accepted and ignored. The author is named by a phone, or, for the
// messaging app's identities without one, by the business-scoped user id (src/chat/provider/identity.ts).

export const MESSAGE_EVENT = 'chat.message.received'
const MAX_BATCH = 100

/** What the member sent, as the conversation sees it. `linked` is the bot's own note that the login form succeeded. */
export type InboundInput =
  /** `voice`: the provider's transcript of a voice note (the history keeps that it was one) */
  | { kind: 'text', text: string, voice?: true }
  | { kind: 'reply', id: string, title: string }
  /** `messageType`: a media kind of src/chat/provider/media.ts (audio without a transcript, image, ...) */
  | { kind: 'unsupported', messageType: MediaKind | string }
  | { kind: 'linked' }

export interface InboundMessage {
  id: string
  /** The conversation's address: the phone in E.164 digits, or the business-scoped user id of a member without one. */
  phone: string
  /** Epoch ms when this service accepted it. */
  receivedAt: number
  input: InboundInput
}

const phone = z.string().trim().regex(/^\+?\d{6,15}$/, 'must be a phone number in E.164 digits').transform((p) => p.replace(/^\+/, ''))
const identity = z.string().trim().min(1).max(160)
const reply = z.object({ id: z.string().min(1).max(256), title: z.string().max(1024).default('') }).loose()

const message = z.object({
  id: z.string().min(1).max(256),
  from: phone.optional(),
  /** Meta's field for the author's business-scoped user id */
  from_user_id: identity.optional(),
  type: z.string().min(1).max(64),
  text: z.object({ body: z.string().max(4096) }).loose().optional(),
  interactive: z.object({
    type: z.string(),
    button_reply: reply.optional(),
    list_reply: reply.optional(),
  }).loose().optional(),
  button: z.object({ payload: z.string().min(1).max(256), text: z.string().max(1024).default('') }).loose().optional(),
}).loose()

const messageEvent = z.object({
  type: z.string().optional(),
  message,
  conversation: z.object({
    id: z.string().optional(),
    phone_number: phone.optional(),
    business_scoped_user_id: identity.optional(),
    username: z.string().max(256).optional(),
  }).loose().optional(),
  phone_number_id: z.string().optional(),
}).loose().superRefine((body, ctx) => {
  const m = body.message
  if (!authorOfEvent(body)) {
    ctx.addIssue({
      code: 'custom',
      path: ['message', 'from'],
      message: 'message.from, conversation.phone_number or a business-scoped user id (conversation.business_scoped_user_id, message.from_user_id) is required',
    })
  }
  if (m.type === 'text' && !m.text) ctx.addIssue({ code: 'custom', path: ['message', 'text'], message: 'Required for a text message' })
  if (m.type === 'button' && !m.button) ctx.addIssue({ code: 'custom', path: ['message', 'button'], message: 'Required for a button message' })
  if (m.type === 'interactive' && !interactiveReply(m.interactive)) {
    ctx.addIssue({ code: 'custom', path: ['message', 'interactive'], message: 'A button_reply or list_reply is required' })
  }
})
type MessageEvent = z.infer<typeof messageEvent>

function authorOfEvent (
  body: { message: { from?: string, from_user_id?: string }, conversation?: { phone_number?: string, business_scoped_user_id?: string, username?: string } }
) {
  return authorOf({
    from: body.message.from,
    phoneNumber: body.conversation?.phone_number,
    userId: body.conversation?.business_scoped_user_id ?? body.message.from_user_id,
    username: body.conversation?.username,
  })
}

const batch = z.object({ type: z.string().optional(), batch: z.literal(true), data: z.array(z.unknown()).max(MAX_BATCH) }).loose()

function interactiveReply (i: MessageEvent['message']['interactive']): z.infer<typeof reply> | undefined {
  if (!i) return undefined
  if (i.type === 'button_reply') return i.button_reply
  if (i.type === 'list_reply') return i.list_reply
  return undefined
}

function inputOf (m: MessageEvent['message']): InboundInput {
  if (m.type === 'text' && m.text) return { kind: 'text', text: m.text.body.trim() }
  const chosen = m.type === 'interactive' ? interactiveReply(m.interactive) : undefined
  if (chosen) return { kind: 'reply', id: chosen.id, title: chosen.title }
  if (m.type === 'button' && m.button) return { kind: 'reply', id: m.button.payload, title: m.button.text }
  const content = mediaContent(m)
  if (content.kind === 'voice') return { kind: 'text', text: content.text, voice: true }
  return { kind: 'unsupported', messageType: content.media }
}

function toMessage (body: MessageEvent, receivedAt: number): InboundMessage {
  return {
    id: body.message.id,
    phone: authorOfEvent(body)?.address ?? '',
    receivedAt,
    input: inputOf(body.message),
  }
}

/** One recipient's status events: the address names the conversation the reply was sent to. */
export interface AddressedStatuses {
  address: string | undefined
  updates: StatusUpdate[]
}

export type Delivery =
  /** `foreign`: messages for another business number, left out of `messages`. */
  | { ok: true, event: string | undefined, messages: InboundMessage[], statuses: AddressedStatuses[], skipped: number, foreign: number }
  | { ok: false, error: z.ZodError }

const recipient = z.looseObject({
  message: z.looseObject({ to: z.unknown().optional(), recipient_id: z.unknown().optional(), recipient_user_id: z.unknown().optional() }),
  conversation: z.looseObject({ phone_number: z.unknown().optional(), business_scoped_user_id: z.unknown().optional() }).optional().catch(undefined),
})

/** A status event's updates and whom the reply went to (never `message.from`: on a sent message it is the business). */
function statusesOf (body: unknown, event: string | undefined, receivedAt: number): AddressedStatuses | undefined {
  const updates = readStatusEvent(body, event, receivedAt)
  if (!updates) return undefined
  const r = recipient.safeParse(body)
  const address = r.success
    ? authorOf({
      from: r.data.conversation?.phone_number ?? r.data.message.to ?? r.data.message.recipient_id,
      userId: r.data.conversation?.business_scoped_user_id ?? r.data.message.recipient_user_id,
    })?.address
    : undefined
  return { address, updates }
}

/**
 * A message that names another business number is not ours to answer, however well signed (a shared secret).
 * (Declared here, not inside `readDelivery`: tsx names a function made per call at each call.)
 */
const foreignNumber = (m: MessageEvent, ourNumber: string | undefined): boolean =>
  ourNumber !== undefined && m.phone_number_id !== undefined && m.phone_number_id !== ourNumber

/** True for the names of the provider's status events. */
export const isStatusEvent = (event: string | undefined): boolean => event !== undefined && STATUS_EVENTS[event] !== undefined

/**
 * One delivery: a single event, or a batch whose items are single events, messages and status events mixed (an
 * item's own `type`, else the delivery's `event`, else its shape tells which). A single message event that does
 * not parse is an error; in a batch, items of other event types or that do not parse are skipped and counted, so
 * that one bad item does not make the provider resend the good ones.
 */
export function readDelivery (body: unknown, receivedAt: number, event?: string, ourNumber?: string): Delivery {
  // only a body saying `batch: true` can be one (the schema's literal): a single event is not tried as a batch first
  const asBatch = (body as { batch?: unknown } | null)?.batch === true ? batch.safeParse(body) : undefined
  if (asBatch?.success) {
    const messages: InboundMessage[] = []
    const statuses: AddressedStatuses[] = []
    let skipped = 0
    let foreign = 0
    for (const item of asBatch.data.data) {
      const named = (item as { type?: unknown } | null)?.type
      const itemEvent = typeof named === 'string' ? named : (event ?? asBatch.data.type)
      const status = itemEvent === undefined || isStatusEvent(itemEvent) ? statusesOf(item, itemEvent, receivedAt) : undefined
      if (status) {
        statuses.push(status)
        continue
      }
      const parsed = messageEvent.safeParse(item)
      if (parsed.success && (itemEvent === undefined || itemEvent === MESSAGE_EVENT)) {
        if (foreignNumber(parsed.data, ourNumber)) foreign++
        else messages.push(toMessage(parsed.data, receivedAt))
      } else {
        skipped++
      }
    }
    return { ok: true, event: asBatch.data.type, messages, statuses, skipped, foreign }
  }
  const named = (body as { type?: unknown } | null)?.type
  const bodyEvent = event ?? (typeof named === 'string' ? named : undefined)
  const status = bodyEvent === undefined || isStatusEvent(bodyEvent) ? statusesOf(body, bodyEvent, receivedAt) : undefined
  if (status) return { ok: true, event: bodyEvent, messages: [], statuses: [status], skipped: 0, foreign: 0 }
  const single = messageEvent.safeParse(body)
  if (!single.success) return { ok: false, error: single.error }
  if (foreignNumber(single.data, ourNumber)) return { ok: true, event: single.data.type, messages: [], statuses: [], skipped: 0, foreign: 1 }
  return { ok: true, event: single.data.type, messages: [toMessage(single.data, receivedAt)], statuses: [], skipped: 0, foreign: 0 }
}
