import { z } from 'zod'
import type { InboundMessage } from './inbound.ts'

// What goes through a phone's mailbox: an accepted message, written by the webhook and read back by the turn
// worker through this one codec, so that both ends agree on the shape and a damaged entry is recognised as
// such (and dead-lettered) instead of reaching the conversation half-read.

/** A mailbox entry: what the webhook writes and the turn reads back. */
export const mail = z.object({
  id: z.string().min(1),
  phone: z.string().min(1),
  receivedAt: z.number(),
  input: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('text'), text: z.string(), voice: z.literal(true).optional() }),
    z.object({ kind: z.literal('reply'), id: z.string(), title: z.string() }),
    z.object({ kind: z.literal('unsupported'), messageType: z.string() }),
    z.object({ kind: z.literal('linked') }),
  ]),
}) satisfies z.ZodType<InboundMessage>

export const encodeMail = (message: InboundMessage): string => JSON.stringify(message)

type Entry = Record<string, unknown>
const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v)
const isString = (v: unknown): v is string => typeof v === 'string'

/** The entry as `mail` answers it, or undefined when the quick reader is not sure. */
function quickMail (json: unknown): InboundMessage | undefined {
  if (!isEntry(json)) return undefined
  const { id, phone, receivedAt } = json
  if (!isString(id) || id.length === 0 || !isString(phone) || phone.length === 0) return undefined
  if (typeof receivedAt !== 'number' || !Number.isFinite(receivedAt)) return undefined
  const input = inputOf(json.input)
  return input && { id, phone, receivedAt, input }
}

/** The input as `mail` answers it (its keys in its order, a key given as undefined kept), or undefined when it is not one. */
function inputOf (input: unknown): InboundMessage['input'] | undefined {
  if (!isEntry(input)) return undefined
  switch (input.kind) {
    case 'text': {
      const { text, voice } = input
      if (!isString(text)) return undefined
      if (!('voice' in input)) return { kind: 'text', text }
      return voice === undefined || voice === true ? { kind: 'text', text, voice } : undefined
    }
    case 'reply': return isString(input.id) && isString(input.title) ? { kind: 'reply', id: input.id, title: input.title } : undefined
    case 'unsupported': return isString(input.messageType) ? { kind: 'unsupported', messageType: input.messageType } : undefined
    case 'linked': return { kind: 'linked' }
    default: return undefined
  }
}

/** The message, or undefined when the entry is not one (not JSON, or not of this shape). */
export function decodeMail (raw: string): InboundMessage | undefined {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return undefined
  }
  // read by hand as `mail` reads it on every turn (zod's parse cost as much as the JSON's); the schema has the
  // last word on anything else (test/chat/quick-readers.test.ts holds the two to one answer)
  const quick = quickMail(json)
  if (quick !== undefined) return quick
  const parsed = mail.safeParse(json)
  return parsed.success ? parsed.data : undefined
}
