import { z } from 'zod'
import { MESSAGE_EVENT } from '../inbound.ts'

// Meta's webhook body (`object: whatsapp_business_account`, `entry[].changes[].value` with `messages`, `contacts`
// and `statuses`) turned into the provider's events, one per message or status, so that everything after the
// webhook reads one format whichever provider a club uses. Meta's message objects are the provider's too; the
// sender's identities (phone, business-scoped user id, username) move to the event's `conversation` as the
// provider puts them.

const MAX_EVENTS = 1000

const contact = z.looseObject({
  wa_id: z.string().optional().catch(undefined),
  user_id: z.string().optional().catch(undefined),
  profile: z.looseObject({ username: z.string().optional().catch(undefined) }).optional().catch(undefined),
})
type Contact = z.infer<typeof contact>
const message = z.looseObject({
  id: z.string(),
  from: z.string().optional().catch(undefined),
  from_user_id: z.string().optional().catch(undefined),
})
const status = z.looseObject({ id: z.string(), status: z.string() })
const list = <T extends z.ZodType>(item: T) => z.array(z.unknown()).optional().catch(undefined)
  .transform((items) => (items ?? []).flatMap((i) => {
    const parsed = item.safeParse(i)
    return parsed.success ? [parsed.data as z.infer<T>] : []
  }))

const value = z.looseObject({
  metadata: z.looseObject({ phone_number_id: z.string().optional().catch(undefined) }).optional().catch(undefined),
  contacts: list(contact),
  messages: list(message),
  statuses: list(status),
})

export const cloudWebhookBody = z.looseObject({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(z.looseObject({
    id: z.string().optional(),
    changes: z.array(z.looseObject({ field: z.string().optional(), value: z.unknown().optional() })).default([]),
  })).max(MAX_EVENTS),
})

export interface CloudEvents {
  /** the provider's events, in the order Meta listed them */
  events: Array<Record<string, unknown>>
  /** changes that were not readable (another field, no value): counted, like a batch's bad items */
  skipped: number
}

function contactFor (contacts: Contact[], m: z.infer<typeof message>): Contact | undefined {
  return contacts.find((c) => (m.from !== undefined && c.wa_id === m.from) || (m.from_user_id !== undefined && c.user_id === m.from_user_id)) ??
    (contacts.length === 1 ? contacts[0] : undefined)
}

/** The events of a parsed body; throws nothing (a change it cannot read is skipped and counted). */
export function cloudEvents (body: z.infer<typeof cloudWebhookBody>): CloudEvents {
  const events: CloudEvents['events'] = []
  let skipped = 0
  for (const entry of body.entry) {
    for (const change of entry.changes) {
      const parsed = value.safeParse(change.value)
      if (!parsed.success || (change.field !== undefined && change.field !== 'messages')) {
        skipped++
        continue
      }
      const v = parsed.data
      const phoneNumberId = v.metadata?.phone_number_id
      for (const m of v.messages) {
        const c = contactFor(v.contacts, m)
        const phone = m.from ?? c?.wa_id
        const userId = m.from_user_id ?? c?.user_id
        const username = c?.profile?.username
        events.push({
          type: MESSAGE_EVENT,
          message: m,
          conversation: {
            ...(phone
              ? { phone_number: phone }
              : {}),
            ...(userId ? { business_scoped_user_id: userId } : {}),
            ...(username ? { username } : {})
          },
          ...(phoneNumberId ? { phone_number_id: phoneNumberId } : {}),
        })
      }
      for (const s of v.statuses) {
        events.push({ type: `chat.message.${s.status}`, message: s, ...(phoneNumberId ? { phone_number_id: phoneNumberId } : {}) })
      }
    }
  }
  return { events, skipped }
}
