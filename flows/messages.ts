import type { Locale } from './types.ts'

// What the member reads in the form, in the member's language (the club's, Spanish unless it says otherwise):
// every label of the Flow JSON is a data field filled from here.
export const MESSAGES = {
  es: {
    incorrectLogin: 'Email o contraseña incorrectos',
    missingFields: 'Ingresá tu email y tu contraseña',
    invalidEmail: 'Ingresá un email válido',
    unknownClub: 'Elegí un club de la lista',
    notMember: (club: string) => `Tu cuenta no es socia de ${club}`,
    tooManyAttempts: (minutes: number) => `Demasiados intentos. Probá de nuevo en ${minutes} min.`,
    unavailable: 'No pudimos verificar tus datos. Probá de nuevo en unos minutos.',
    clubHeading: '¿De qué club sos socio?',
    clubLabel: 'Club',
    next: 'Continuar',
    loginIntro: 'Ingresá con el email y la contraseña de tu cuenta del club.',
    passwordLabel: 'Contraseña',
    logIn: 'Ingresar',
    linked: '¡Listo! Tu cuenta quedó vinculada.',
    backToChat: 'Cerrá este formulario y seguí en el chat.',
    done: 'Listo',
  },
  en: {
    incorrectLogin: 'Incorrect email or password',
    missingFields: 'Enter your email and password',
    invalidEmail: 'Enter a valid email',
    unknownClub: 'Choose a club from the list',
    notMember: (club: string) => `Your account is not a member of ${club}`,
    tooManyAttempts: (minutes: number) => `Too many attempts. Try again in ${minutes} min.`,
    unavailable: 'We could not check your details. Try again in a few minutes.',
    clubHeading: 'Which club are you a member of?',
    clubLabel: 'Club',
    next: 'Continue',
    loginIntro: 'Log in with the email and password of your club account.',
    passwordLabel: 'Password',
    logIn: 'Log in',
    linked: 'Done! Your account is linked.',
    backToChat: 'Close this form and carry on in the chat.',
    done: 'Done',
  },
} as const

export const DEFAULT_LOCALE: Locale = 'es'

/** The language a screen's data names (`lang`, sent back by each footer), else the default. */
export function localeIn (data: unknown): Locale {
  const lang = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).lang : undefined
  return lang === 'en' || lang === 'es' ? lang : DEFAULT_LOCALE
}
