import type { Locale } from './types.ts'

// What the member reads in the form, in the club's language (Spanish unless the club says otherwise).
export const MESSAGES = {
  es: {
    incorrectLogin: 'Email o contraseña incorrectos',
    missingFields: 'Ingresá tu email y tu contraseña',
    invalidEmail: 'Ingresá un email válido',
    unknownClub: 'Elegí un club de la lista',
    notMember: (club: string) => `Tu cuenta no es socia de ${club}`,
    tooManyAttempts: (minutes: number) => `Demasiados intentos. Probá de nuevo en ${minutes} min.`,
    unavailable: 'No pudimos verificar tus datos. Probá de nuevo en unos minutos.',
  },
  en: {
    incorrectLogin: 'Incorrect email or password',
    missingFields: 'Enter your email and password',
    invalidEmail: 'Enter a valid email',
    unknownClub: 'Choose a club from the list',
    notMember: (club: string) => `Your account is not a member of ${club}`,
    tooManyAttempts: (minutes: number) => `Too many attempts. Try again in ${minutes} min.`,
    unavailable: 'We could not check your details. Try again in a few minutes.',
  },
} as const

export const DEFAULT_LOCALE: Locale = 'es'
