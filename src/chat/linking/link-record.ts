import { z } from 'zod'

// spec, Link record and Limits: a pending link, valid 10 minutes, single use.
export const LINK_CODE_TTL_MS = 10 * 60 * 1000
const LINK_CODE_MIN_LENGTH = 10

export const linkRecordSchema = z.object({
  customerId: z.string(),
  tenantId: z.string(),
  tenantName: z.string(),
  email: z.string(),
  name: z.string(),
  token: z.string(),
})
export type LinkRecord = z.infer<typeof linkRecordSchema>

/**
 * A code a club's staff makes for a member: it links only the chat of the member's phone on record (its digits),
 * and is never answered by the link route, since its record holds the member's token.
 */
const staffLinkSchema = linkRecordSchema.extend({ phone: z.string().regex(/^\d+$/) })
export type StaffLinkRecord = z.infer<typeof staffLinkSchema>
const storedLinkSchema = z.union([staffLinkSchema, linkRecordSchema])
export type StoredLink = LinkRecord | StaffLinkRecord

/** A stored code's record (either kind). */
export const parseStoredLink = (raw: string): StoredLink => storedLinkSchema.parse(JSON.parse(raw))

/** The digits of a phone as written on a record (`+54 9 11 5555-6666`) or as the chat names it (`5491155556666`). */
export const phoneDigits = (phone: string): string => phone.replace(/\D/g, '')

/** The code as the path carries it: at least 10 characters and a UUID (matched case-insensitively). */
export const linkCodeSchema = z.string()
  .min(LINK_CODE_MIN_LENGTH, `Must be at least ${LINK_CODE_MIN_LENGTH} characters`)
  .pipe(z.uuid('Must be a UUID'))
  .transform((code) => code.toLowerCase())

/** The code in canonical (lower case) form, or undefined when `input` is not a link code. */
export function parseLinkCode (input: unknown): string | undefined {
  const parsed = linkCodeSchema.safeParse(input)
  return parsed.success ? parsed.data : undefined
}
