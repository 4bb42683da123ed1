// The login form's data API (version 3.0): what the endpoint answers for each screen.
const DATA_API_VERSION = '3.0'

export type Locale = 'es' | 'en'

/** A club as the form needs it; the endpoint reads it from the tenant registry. */
export interface Club {
  id: string
  name: string
  locale: Locale
}

export interface ScreenData {
  CLUB_SELECT: {
    clubs: Array<{ id: string, title: string }>, error_message: string, has_error: boolean, lang: Locale, heading: string, club_label: string, cta: string
  }
  LOGIN: { club_id: string, club_name: string, error_message: string, has_error: boolean, lang: Locale, intro: string, password_label: string, cta: string }
  SUCCESS: { member_name: string, club_name: string, lang: Locale, heading: string, caption: string, cta: string }
}

export type ScreenId = keyof ScreenData

export type FlowResponse = { [S in ScreenId]: { version: typeof DATA_API_VERSION, screen: S, data: ScreenData[S] } }[ScreenId]

export function screen<S extends ScreenId> (id: S, data: ScreenData[S]): FlowResponse {
  return { version: DATA_API_VERSION, screen: id, data } as FlowResponse
}

// The flow's text components hide an error line with has_error; a blank message keeps the layout stable.
export const NO_ERROR = ' '
