import { DEFAULT_LOCALE, MESSAGES, localeIn } from '../messages.ts'
import { NO_ERROR, screen, type Club, type FlowResponse, type Locale } from '../types.ts'

/** The first screen, in `lang`: the clubs to choose from, and an error line when the last choice was not one of them. */
export function clubSelectScreen (clubs: readonly Club[], error?: string, lang: Locale = DEFAULT_LOCALE): FlowResponse {
  const text = MESSAGES[lang]
  return screen('CLUB_SELECT', {
    clubs: clubs.map((c) => ({ id: c.id, title: c.name })),
    error_message: error ?? NO_ERROR,
    has_error: error !== undefined,
    lang,
    heading: text.clubHeading,
    club_label: text.clubLabel,
    cta: text.next,
  })
}

/** The login screen for a club, in its language, with an error line when `error` is given. */
export function loginScreen (club: Club, error?: string): FlowResponse {
  const text = MESSAGES[club.locale]
  return screen('LOGIN', {
    club_id: club.id,
    club_name: club.name,
    error_message: error ?? NO_ERROR,
    has_error: error !== undefined,
    lang: club.locale,
    intro: text.loginIntro,
    password_label: text.passwordLabel,
    cta: text.logIn,
  })
}

/** The club the form data names, when it is one of `clubs`. */
export function chosenClub (data: unknown, clubs: readonly Club[]): Club | undefined {
  const id = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).club_id : undefined
  return typeof id === 'string' ? clubs.find((c) => c.id === id) : undefined
}

/** CLUB_SELECT submitted: on to LOGIN for that club, or the list again when the club is unknown. */
export function onClubSelect (data: unknown, clubs: readonly Club[]): FlowResponse {
  const club = chosenClub(data, clubs)
  const lang = localeIn(data)
  return club ? loginScreen(club) : clubSelectScreen(clubs, MESSAGES[lang].unknownClub, lang)
}
