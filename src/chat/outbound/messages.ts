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

/** The full body for one address, checked against the provider's limits; throws a ZodError when one is broken. */
export function sendBodyFor (address: string, message: OutboundMessage): SendBody {
  // the address and the message checked apart and put together as `sendBody` would answer (its key order too): zod's
  // intersection parses each side whole and merges the results, two to three times the work for a turn's every reply
  return { messaging_product: 'whatsapp', recipient_type: 'individual', ...addressee.parse(recipientOf(address)), ...outboundMessage.parse(message) }
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
