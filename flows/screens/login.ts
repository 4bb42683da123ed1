import { z } from 'zod'
import { MESSAGES, localeIn } from '../messages.ts'
import type { Club, FlowResponse } from '../types.ts'
import { chosenClub, clubSelectScreen, loginScreen } from './club-select.ts'
import { successScreen } from './complete.ts'

// The LOGIN screen in two pure steps around the caller's I/O: read the form, then word the outcome.

/** Either answer right away, or authenticate these credentials for this club and call `onLoginOutcome`. */
export type LoginStep =
  | { kind: 'respond', response: FlowResponse }
  | { kind: 'authenticate', club: Club, email: string, password: string }

export type LoginOutcome =
  | { kind: 'linked', memberName: string }
  | { kind: 'rejected' }
  | { kind: 'not-member' }
  | { kind: 'rate-limited', retryAfterMs: number }
  | { kind: 'unavailable' }

// Anything that is not a string reads as blank, so odd form data gets a message, never an exception.
const loginForm = z.object({ email: z.string().trim().catch(''), password: z.string().catch('') }).catch({ email: '', password: '' })
const email = z.email().max(254)
// Longer passwords are refused without being hashed.
const MAX_PASSWORD_LENGTH = 256

export function readLogin (data: unknown, clubs: readonly Club[]): LoginStep {
  const club = chosenClub(data, clubs)
  if (!club) return { kind: 'respond', response: clubSelectScreen(clubs, MESSAGES[localeIn(data)].unknownClub, localeIn(data)) }
  const form = loginForm.parse(data)
  const text = MESSAGES[club.locale]
  if (form.email === '' || form.password === '') return { kind: 'respond', response: loginScreen(club, text.missingFields) }
  if (!email.safeParse(form.email).success) return { kind: 'respond', response: loginScreen(club, text.invalidEmail) }
  if (form.password.length > MAX_PASSWORD_LENGTH) return { kind: 'respond', response: loginScreen(club, text.incorrectLogin) }
  return { kind: 'authenticate', club, email: form.email, password: form.password }
}

export function onLoginOutcome (club: Club, outcome: LoginOutcome): FlowResponse {
  const text = MESSAGES[club.locale]
  switch (outcome.kind) {
    case 'linked': return successScreen(outcome.memberName, club.name, club.locale)
    case 'rejected': return loginScreen(club, text.incorrectLogin)
    case 'not-member': return loginScreen(club, text.notMember(club.name))
    case 'rate-limited': return loginScreen(club, text.tooManyAttempts(Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000))))
    case 'unavailable': return loginScreen(club, text.unavailable)
  }
}
