import { z } from 'zod'

// A member as the club knows them, kept by this service (never in the commerce backend's metadata): standing,
// birth date, registration, the identity check (the kind of document, never its number) and a personal allowance.

export const STATUSES = ['pending', 'active', 'suspended', 'lapsed', 'ended'] as const
export type Status = typeof STATUSES[number]
export const DOCUMENT_KINDS = ['id-card', 'passport', 'residence-permit', 'driving-licence', 'other'] as const
export type DocumentKind = typeof DOCUMENT_KINDS[number]

interface IdentityCheck {
  at: string
  /** The staff member who saw the document: their id and name. */
  by: { id: string, name: string }
  document: DocumentKind
}

export interface Standing {
  status: Status
  reason: string | null
  /** YYYY-MM-DD */
  birthDate: string | null
  memberSince: string | null
  validUntil: string | null
  identityCheck: IdentityCheck | null
  /** Replaces the club's monthly cap for this member (a signed forecast, a prescription). */
  monthlyAllowanceGrams: number | null
  updatedAt: string | null
}

/** Members the service knew before standing existed: active adults as far as it knows. */
export const DEFAULT_STANDING: Standing = {
  status: 'active', reason: null, birthDate: null, memberSince: null, validUntil: null, identityCheck: null, monthlyAllowanceGrams: null, updatedAt: null,
}

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export const isCalendarDay = (day: string): boolean => {
  if (!DAY.test(day)) return false
  const ms = Date.parse(`${day}T00:00:00Z`)
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === day
}

export const calendarDay = z.string().refine(isCalendarDay, 'a calendar day, YYYY-MM-DD')

export const standingSchema = z.object({
  status: z.enum(STATUSES),
  reason: z.string().nullable(),
  birthDate: z.string().nullable(),
  memberSince: z.string().nullable(),
  validUntil: z.string().nullable(),
  identityCheck: z.object({
    at: z.string(),
    by: z.object({ id: z.string(), name: z.string() }),
    document: z.enum(DOCUMENT_KINDS),
  }).nullable(),
  monthlyAllowanceGrams: z.number().nullable(),
  updatedAt: z.string().nullable(),
}).meta({ id: 'MemberStanding' })
