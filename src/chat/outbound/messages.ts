import type { FastifyBaseLogger } from 'fastify'
import { z } from 'zod'
import { BUSINESS_SCOPED_ID, PHONE, recipientOf } from '../provider/identity.ts'

// The provider's Cloud-API message bodies (WhatsApp Cloud API shapes: text, interactive, template), with its limits as the last guard before a
// send: the composer truncates and pages, and a body that still breaks a limit is refused here, never sent.

export const LIMITS = {
  buttons: 3,
  buttonTitle: 20,
  rows: 10,
  rowTitle: 24,
  rowDescription: 72,
  listButton: 20,
  interactiveBody: 1024,
  textBody: 4096,
} as const

const body = z.object({ text: z.string().min(1).max(LIMITS.interactiveBody) })

const buttonInteractive = z.object({
  type: z.literal('button'),
  body,
  action: z.object({
    buttons: z.array(z.object({
      type: z.literal('reply'),
      reply: z.object({ id: z.string().min(1).max(256), title: z.string().min(1).max(LIMITS.buttonTitle) }),
    })).min(1).max(LIMITS.buttons),
  }),
})

const row = z.object({
  id: z.string().min(1).max(200),
  title: z.string().min(1).max(LIMITS.rowTitle),
  description: z.string().max(LIMITS.rowDescription).optional(),
})

const listInteractive = z.object({
  type: z.literal('list'),
  body,
  action: z.object({
    button: z.string().min(1).max(LIMITS.listButton),
    sections: z.array(z.object({ title: z.string().max(24).optional(), rows: z.array(row).min(1) })).min(1).max(10),
  }).refine((a) => a.sections.reduce((n, s) => n + s.rows.length, 0) <= LIMITS.rows, { message: `at most ${LIMITS.rows} rows in all` }),
})

const flowInteractive = z.object({
  type: z.literal('flow'),
  body,
  action: z.object({
    name: z.literal('flow'),
    parameters: z.object({
      flow_message_version: z.literal('3'),
      flow_token: z.string().min(1),
      flow_id: z.string().min(1),
      flow_cta: z.string().min(1).max(LIMITS.buttonTitle),
      flow_action: z.literal('navigate'),
      flow_action_payload: z.object({ screen: z.string().min(1), data: z.record(z.string(), z.unknown()) }),
    }),
  }),
})

/** A pre-approved template: the only kind the provider delivers outside its 24-hour window. */
const templateMessage = z.object({
  type: z.literal('template'),
  template: z.object({
    name: z.string().regex(/^[a-z0-9_]{1,512}$/),
    language: z.object({ code: z.string().min(2).max(15) }),
    components: z.array(z.object({
      type: z.literal('body'),
      parameters: z.array(z.object({ type: z.literal('text'), text: z.string().min(1).max(LIMITS.interactiveBody) })),
    })).optional(),
  }),
})

export const outboundMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.object({ body: z.string().min(1).max(LIMITS.textBody), preview_url: z.boolean().optional() }) }),
  z.object({ type: z.literal('interactive'), interactive: z.discriminatedUnion('type', [buttonInteractive, listInteractive, flowInteractive]) }),
  templateMessage,
])
export type OutboundMessage = z.infer<typeof outboundMessage>

/** Whom a body goes to: a phone in `to`, or a member without one by the business-scoped user id in `recipient`. */
const addressee = z.union([z.object({ to: z.string().regex(PHONE) }), z.object({ recipient: z.string().regex(BUSINESS_SCOPED_ID) })])

export const sendBody = z.object({
  messaging_product: z.literal('whatsapp'),
  recipient_type: z.literal('individual'),
}).and(addressee).and(outboundMessage)
export type SendBody = z.infer<typeof sendBody>

/** The conversation's address a body goes to (the phone, or the business-scoped user id). */
export const addressOf = (body: SendBody): string => 'to' in body ? body.to : body.recipient

// The quick check of a turn's replies: zod's parse of `outboundMessage` was the larger part of saying a reply. The
// kinds a turn says (text, buttons, a list) are checked here by hand against the same limits and copied with the
// schema's keys in its order, as its parse answers; anything else, or anything not plainly within the limits, goes
// to the schema, which answers it or throws its own error (test/chat/quick-readers.test.ts holds both to one answer).
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const within = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max

function quickBody (v: unknown): { text: string } | undefined {
  return isRecord(v) && within(v.text, 1, LIMITS.interactiveBody) ? { text: v.text } : undefined
}

function quickButtons (action: unknown): { buttons: Array<{ type: 'reply', reply: { id: string, title: string } }> } | undefined {
  if (!isRecord(action) || !Array.isArray(action.buttons) || action.buttons.length < 1 || action.buttons.length > LIMITS.buttons) return undefined
  const buttons = []
  for (const b of action.buttons as unknown[]) {
    if (!isRecord(b) || b.type !== 'reply' || !isRecord(b.reply)) return undefined
    const { id, title } = b.reply
    if (!within(id, 1, 256) || !within(title, 1, LIMITS.buttonTitle)) return undefined
    buttons.push({ type: 'reply' as const, reply: { id, title } })
  }
  return { buttons }
}

type Row = { id: string, title: string, description?: string }
function quickList (action: unknown): { button: string, sections: Array<{ title?: string, rows: Row[] }> } | undefined {
  if (!isRecord(action) || !within(action.button, 1, LIMITS.listButton)) return undefined
  const given = action.sections
  if (!Array.isArray(given) || given.length < 1 || given.length > 10) return undefined
  const sections = []
  let count = 0
  for (const section of given as unknown[]) {
    if (!isRecord(section) || !Array.isArray(section.rows) || section.rows.length < 1) return undefined
    const { title } = section
    if (title !== undefined && !within(title, 0, 24)) return undefined
    const rows: Row[] = []
    for (const row of section.rows as unknown[]) {
      if (!isRecord(row) || !within(row.id, 1, 200) || !within(row.title, 1, LIMITS.rowTitle)) return undefined
      const { id, title: rowTitle, description } = row
      // a key given as undefined stays in zod's answer, a key not given is not there
      if (!('description' in row)) rows.push({ id, title: rowTitle })
      else if (description === undefined || within(description, 0, LIMITS.rowDescription)) rows.push({ id, title: rowTitle, description })
      else return undefined
    }
    count += rows.length
    sections.push('title' in section ? { title, rows } : { rows })
  }
  return count <= LIMITS.rows ? { button: action.button, sections } : undefined
}

/** The message as `outboundMessage.parse` answers it, or undefined when the quick check is not sure. */
function quickMessage (m: unknown): OutboundMessage | undefined {
  if (!isRecord(m)) return undefined
  if (m.type === 'text') {
    const text = m.text
    if (!isRecord(text) || !within(text.body, 1, LIMITS.textBody)) return undefined
    const { body, preview_url: preview } = text
    if (!('preview_url' in text)) return { type: 'text', text: { body } }
    return preview === undefined || typeof preview === 'boolean' ? { type: 'text', text: { body, preview_url: preview } } : undefined
  }
  if (m.type !== 'interactive' || !isRecord(m.interactive)) return undefined
  const { type, body: given, action: asked } = m.interactive
  const body = quickBody(given)
  if (body === undefined) return undefined
  if (type === 'button') {
    const action = quickButtons(asked)
    return action && { type: 'interactive', interactive: { type, body, action } }
  }
  if (type === 'list') {
    const action = quickList(asked)
    return action && { type: 'interactive', interactive: { type, body, action } }
  }
  return undefined
}

/** The full body for one address, checked against the provider's limits; throws a ZodError when one is broken. */
export function sendBodyFor (address: string, message: OutboundMessage): SendBody {
  // the address and the message checked apart and put together as `sendBody` would answer (its key order too): zod's
  // intersection parses each side whole and merges the results, two to three times the work for a turn's every reply
  const to = PHONE.test(address) ? { to: address } : BUSINESS_SCOPED_ID.test(address) ? { recipient: address } : addressee.parse(recipientOf(address))
  return { messaging_product: 'whatsapp', recipient_type: 'individual', ...to, ...(quickMessage(message) ?? outboundMessage.parse(message)) }
}

/** Cuts text to `max` UTF-16 units (what the schema counts), marking the cut and never splitting a character. */
export function clip (text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`
}

/**
 * What a turn says, collected for its commit (the worker queues them in the phone's outbox; nothing is sent from a
 * turn), each checked against the provider's limits as it is said: one that breaks a limit is dropped.
 */
export class TurnReplies {
  readonly bodies: SendBody[] = []
  constructor (private readonly log: FastifyBaseLogger) {}

  add (phone: string, message: OutboundMessage): void {
    try {
      this.bodies.push(sendBodyFor(phone, message))
    } catch (err) {
      this.log.error({ err, type: message.type }, 'chat reply breaks a provider limit: not sent')
    }
  }
}
