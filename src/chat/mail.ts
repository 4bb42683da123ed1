import { z } from 'zod'
import type { InboundMessage } from './inbound.ts'

// What goes through a phone's mailbox: an accepted message, written by the webhook and read back by the turn
// worker through this one codec, so that both ends agree on the shape and a damaged entry is recognised as
// such (and dead-lettered) instead of reaching the conversation half-read.

const mail = z.object({
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

/** The message, or undefined when the entry is not one (not JSON, or not of this shape). */
export function decodeMail (raw: string): InboundMessage | undefined {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return undefined
  }
  const parsed = mail.safeParse(json)
  return parsed.success ? parsed.data : undefined
}
