import { MESSAGES, localeIn } from '../messages.ts'
import { screen, type FlowResponse, type Locale } from '../types.ts'

/** The last screen, in the member's language: who is now linked to which club. */
export function successScreen (memberName: string, clubName: string, lang: Locale): FlowResponse {
  const text = MESSAGES[lang]
  return screen('SUCCESS', { member_name: memberName, club_name: clubName, lang, heading: text.linked, caption: text.backToChat, cta: text.done })
}

/** The flow finished (action COMPLETE): SUCCESS, echoing the names and language the form carries, with no further work. */
export function onComplete (data: unknown): FlowResponse {
  const given = typeof data === 'object' && data !== null ? data as Record<string, unknown> : {}
  const text = (value: unknown): string => typeof value === 'string' ? value : ''
  return successScreen(text(given.member_name), text(given.club_name), localeIn(data))
}
