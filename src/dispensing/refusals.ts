import { AppError } from '../errors.ts'
import type { ClubRules } from '../tenants/rules.ts'
import { daysBefore, type Period, type Refusal } from './decide.ts'
import { toGrams } from './dosage.ts'

// A refusal in the interface's words: 403 LIMIT_EXCEEDED with {current, limit, period, remaining} in grams for a
// cap, 403 FORBIDDEN naming why for the member's standing or a THC ceiling, 422 for delivery in a pickup-only
// club. Pure.

const PERIOD_WORDS: Record<Period, string> = { day: 'daily', month: 'monthly', year: 'yearly' }

const STATUS_HINTS: Record<string, string> = {
  pending: 'staff record the identity check at the club first',
  suspended: 'talk to the club',
  lapsed: 'renew the membership with the club',
  ended: 'the membership has ended',
}

/** The member's days of membership still missing: the first day they may receive. */
const firstDay = (memberSince: string, minDays: number): string => daysBefore(memberSince, -minDays)

export function refusalError (refusal: Refusal, rules: ClubRules): AppError {
  switch (refusal.kind) {
    case 'limit': {
      const current = toGrams(refusal.current)
      const limit = toGrams(refusal.limit)
      const remaining = toGrams(Math.max(0, refusal.limit - refusal.current))
      return new AppError(
        'LIMIT_EXCEEDED', `Over the member's ${PERIOD_WORDS[refusal.period]} cap: ${current} g of ${limit} g taken or reserved, ${remaining} g left`,
        {
          details: { current, limit, period: refusal.period, remaining },
        }
      )
    }
    case 'status':
      return new AppError('FORBIDDEN', `The membership is ${refusal.status}: ${STATUS_HINTS[refusal.status] ?? 'talk to the club'}`, {
        details: { reason: 'status', status: refusal.status },
      })
    case 'registration':
      return new AppError('FORBIDDEN', refusal.validUntil
        ? `The member's registration expired on ${refusal.validUntil}: it must be renewed`
        : 'The club serves registered members only: record the member\'s registration (validUntil) first', {
        details: { reason: 'registration', validUntil: refusal.validUntil },
      })
    case 'under-age':
      return new AppError('FORBIDDEN', `The club dispenses to members aged ${rules.minAge ?? 18} or more only`, {
        details: { reason: 'minAge', minAge: rules.minAge }
      })
    case 'min-days':
      return new AppError(
        'FORBIDDEN',
        `A member receives a first dispensation after ${rules.minMembershipDays} days of membership: from ${firstDay(
          refusal.memberSince, rules.minMembershipDays
        )}`,
        {
          details: { reason: 'minMembershipDays', minMembershipDays: rules.minMembershipDays, from: firstDay(refusal.memberSince, rules.minMembershipDays) },
        }
      )
    case 'allowance':
      return new AppError('FORBIDDEN', 'The club caps each member by their own monthly allowance (a signed forecast): record it first', {
        details: { reason: 'allowanceRequired' },
      })
    case 'thc': {
      const ceiling = rules.young?.maxThcPercent ?? null
      return new AppError('FORBIDDEN', `Members under ${rules.young?.underAge ?? 21} receive nothing above ${ceiling ?? 0} % THC (or of unknown THC)`, {
        details: { reason: 'thcCeiling', ceilingPercent: ceiling, underAge: rules.young?.underAge ?? null },
      })
    }
  }
}

/** Delivery in a club whose rules hand over on the premises only. */
export function deliveryRefused (): AppError {
  return new AppError('VALIDATION_ERROR', 'This club hands over on its premises only (rule deliveryAllowed is false): choose pickup', {
    status: 422,
    details: { rule: 'deliveryAllowed', errors: { shippingMethod: ['pickup only: the club\'s rules allow no delivery'] } },
  })
}
