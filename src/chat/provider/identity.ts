// Who wrote: the messaging app is rolling out identities without a phone number (a business-scoped user id, and a
// username), and the provider says not to assume `from`, `phone_number` or `wa_id` are there. A conversation is
// keyed by its address: the phone in E.164 digits when there is one, else the business-scoped user id, sent back
// whole and verbatim (changing its case or cutting its prefix makes the send fail).

/** A phone in E.164 digits, without the plus. */
export const PHONE = /^\d{6,15}$/
/** A business-scoped user id: a two-letter country code, a period, an optional `ENT.` (a parent id), then up to 128 letters and digits. */
export const BUSINESS_SCOPED_ID = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$/

const isPhone = (address: string): boolean => PHONE.test(address)
const isBusinessScopedId = (address: string): boolean => BUSINESS_SCOPED_ID.test(address)
/** What a conversation is keyed by and replies go to: a phone, or a business-scoped user id. */
export const isAddress = (address: string): boolean => isPhone(address) || isBusinessScopedId(address)

export interface Author {
  address: string
  phone?: string
  userId?: string
  username?: string
}

const phoneOf = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined
  const digits = value.trim().replace(/^\+/, '')
  return PHONE.test(digits) ? digits : undefined
}
const userIdOf = (value: unknown): string | undefined => typeof value === 'string' && BUSINESS_SCOPED_ID.test(value.trim()) ? value.trim() : undefined
const usernameOf = (value: unknown): string | undefined => typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 64) : undefined

/** The fields that may name the author (who wrote), from the message and its conversation; any may be absent. */
export interface AuthorFields {
  from?: unknown
  phoneNumber?: unknown
  /** the business-scoped user id, wherever the payload put it (`from_user_id`, `business_scoped_user_id`, `user_id`) */
  userId?: unknown
  username?: unknown
}

/** The author, or undefined when neither a phone nor a business-scoped user id names one. */
export function authorOf (fields: AuthorFields): Author | undefined {
  const phone = phoneOf(fields.from) ?? phoneOf(fields.phoneNumber)
  const userId = userIdOf(fields.userId)
  const address = phone ?? userId
  if (address === undefined) return undefined
  const username = usernameOf(fields.username)
  return { address, ...(phone ? { phone } : {}), ...(userId ? { userId } : {}), ...(username ? { username } : {}) }
}

/** The recipient fields of a send body: `to` for a phone, `recipient` for a business-scoped user id. */
export function recipientOf (address: string): { to: string } | { recipient: string } {
  return isPhone(address) ? { to: address } : { recipient: address }
}
