import { z } from 'zod'

// The webhook's body (one message, or a batch) read into one message per member input.
// Extra provider fields are accepted and ignored.

export const MESSAGE_EVENT = 'chat.message.received'
const MAX_BATCH = 100

/** What the member sent, as the conversation sees it. `linked` is the bot's own note that the login form succeeded. */
export type InboundInput =
  | { kind: 'text', text: string }
  | { kind: 'reply', id: string, title: string }
  | { kind: 'unsupported', messageType: string }
  | { kind: 'linked' }

export interface InboundMessage {
  id: string
  phone: string
  /** Epoch ms when this service accepted it. */
  receivedAt: number
  input: InboundInput
}

const phone = z.string().trim().regex(/^\+?\d{6,15}$/, 'must be a phone number in E.164 digits').transform((p) => p.replace(/^\+/, ''))
const reply = z.object({ id: z.string().min(1).max(256), title: z.string().max(1024).default('') }).loose()

const message = z.object({
  id: z.string().min(1).max(256),
  from: phone.optional(),
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
  conversation: z.object({ id: z.string().optional(), phone_number: phone.optional() }).loose().optional(),
  phone_number_id: z.string().optional(),
}).loose().superRefine((body, ctx) => {
  const m = body.message
  if (!m.from && !body.conversation?.phone_number) {
    ctx.addIssue({ code: 'custom', path: ['message', 'from'], message: 'message.from or conversation.phone_number is required' })
  }
  if (m.type === 'text' && !m.text) ctx.addIssue({ code: 'custom', path: ['message', 'text'], message: 'Required for a text message' })
  if (m.type === 'button' && !m.button) ctx.addIssue({ code: 'custom', path: ['message', 'button'], message: 'Required for a button message' })
  if (m.type === 'interactive' && !interactiveReply(m.interactive)) {
    ctx.addIssue({ code: 'custom', path: ['message', 'interactive'], message: 'A button_reply or list_reply is required' })
  }
})
type MessageEvent = z.infer<typeof messageEvent>

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
  return { kind: 'unsupported', messageType: m.type }
}

function toMessage (body: MessageEvent, receivedAt: number): InboundMessage {
  return {
    id: body.message.id,
    phone: body.message.from ?? body.conversation?.phone_number ?? '',
    receivedAt,
    input: inputOf(body.message),
  }
}

export type Delivery =
  | { ok: true, event: string | undefined, messages: InboundMessage[], skipped: number }
  | { ok: false, error: z.ZodError }

/**
 * One delivery: a single event, or a batch whose items are single events. A single event that does not parse
 * is an error; in a batch, items of other event types or that do not parse are skipped and counted, so that
 * one bad item does not make the provider resend the good ones.
 */
export function readDelivery (body: unknown, receivedAt: number): Delivery {
  // only a body saying `batch: true` can be one (the schema's literal): a single event is not tried as a batch first
  const asBatch = (body as { batch?: unknown } | null)?.batch === true ? batch.safeParse(body) : undefined
  if (asBatch?.success) {
    const messages: InboundMessage[] = []
    let skipped = 0
    for (const item of asBatch.data.data) {
      const parsed = messageEvent.safeParse(item)
      if (parsed.success && (parsed.data.type === undefined || parsed.data.type === MESSAGE_EVENT)) messages.push(toMessage(parsed.data, receivedAt))
      else skipped++
    }
    return { ok: true, event: asBatch.data.type, messages, skipped }
  }
  const single = messageEvent.safeParse(body)
  if (!single.success) return { ok: false, error: single.error }
  return { ok: true, event: single.data.type, messages: [toMessage(single.data, receivedAt)], skipped: 0 }
}
