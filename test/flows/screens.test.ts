import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import flow from '../../flows/login.flow.json' with { type: 'json' }
import { clubSelectScreen, onClubSelect } from '../../flows/screens/club-select.ts'
import { onComplete } from '../../flows/screens/complete.ts'
import { onLoginOutcome, readLogin, type LoginOutcome } from '../../flows/screens/login.ts'
import type { Club, FlowResponse } from '../../flows/types.ts'
import { matchesScreen } from './screen-data.ts'

const norte: Club = { id: 'club-norte', name: 'Club Norte', locale: 'es' }
const north: Club = { id: 'club-north', name: 'North Club', locale: 'en' }
const clubs = [norte, north]
const fits = (r: FlowResponse): string[] => matchesScreen(flow.screens.find((s) => s.id === r.screen)?.data ?? {}, r.data)

describe('CLUB_SELECT', () => {
  it('lists the clubs as {id, title} with no error', () => {
    expect(clubSelectScreen(clubs)).toEqual({
      version: '3.0',
      screen: 'CLUB_SELECT',
      data: {
        clubs: [{ id: 'club-norte', title: 'Club Norte' }, { id: 'club-north', title: 'North Club' }],
        error_message: ' ',
        has_error: false,
        lang: 'es',
        heading: '¿De qué club sos socio?',
        club_label: 'Club',
        cta: 'Continuar',
      },
    })
    expect(clubSelectScreen(clubs, undefined, 'en').data).toMatchObject({ lang: 'en', heading: 'Which club are you a member of?', cta: 'Continue' })
  })

  it('a known club goes on to LOGIN with its name and a blank error', () => {
    expect(onClubSelect({ club_id: 'club-norte' }, clubs)).toEqual({
      version: '3.0',
      screen: 'LOGIN',
      data: {
        club_id: 'club-norte',
        club_name: 'Club Norte',
        error_message: ' ',
        has_error: false,
        lang: 'es',
        intro: 'Ingresá con el email y la contraseña de tu cuenta del club.',
        password_label: 'Contraseña',
        cta: 'Ingresar',
      },
    })
    expect(onClubSelect({ club_id: 'club-north' }, clubs).data).toMatchObject({ lang: 'en', password_label: 'Password', cta: 'Log in' })
    expect(onClubSelect({ club_id: 'club-x', lang: 'en' }, clubs).data).toMatchObject({
      error_message: 'Choose a club from the list', heading: 'Which club are you a member of?'
    })
  })

  it('an unknown or missing club shows the list again with an error', () => {
    for (const data of [{ club_id: 'club-x' }, {}, null, { club_id: 7 }]) {
      const r = onClubSelect(data, clubs)
      expect(r.screen).toBe('CLUB_SELECT')
      expect(r.data).toMatchObject({ has_error: true, error_message: 'Elegí un club de la lista' })
    }
  })
})

describe('LOGIN', () => {
  it('well-formed credentials are to be authenticated, email trimmed, password as typed', () => {
    expect(readLogin({ club_id: 'club-norte', email: ' ana@example.com ', password: ' pw ' }, clubs))
      .toEqual({ kind: 'authenticate', club: norte, email: 'ana@example.com', password: ' pw ' })
  })

  it('blank fields, a bad email or an absurd password are answered at once, in the club locale', () => {
    const answer = (data: unknown) => {
      const step = readLogin(data, clubs)
      return step.kind === 'respond' ? step.response.data : step
    }
    expect(answer({ club_id: 'club-norte', email: '', password: 'x' })).toMatchObject({ has_error: true, error_message: 'Ingresá tu email y tu contraseña' })
    expect(answer({ club_id: 'club-north', password: 'x' })).toMatchObject({ has_error: true, error_message: 'Enter your email and password' })
    expect(answer({ club_id: 'club-norte', email: 'ana', password: 'x' })).toMatchObject({ has_error: true, error_message: 'Ingresá un email válido' })
    expect(answer({ club_id: 'club-norte', email: 'ana@example.com', password: 'x'.repeat(300) })).toMatchObject({
      has_error: true, error_message: 'Email o contraseña incorrectos'
    })
    expect(answer({ club_id: 'nope', email: 'ana@example.com', password: 'x' })).toMatchObject({ has_error: true, error_message: 'Elegí un club de la lista' })
  })

  it('words each outcome in the club locale', () => {
    expect(onLoginOutcome(norte, { kind: 'linked', memberName: 'Ana Pereyra' })).toMatchObject({
      version: '3.0',
      screen: 'SUCCESS',
      data: { member_name: 'Ana Pereyra', club_name: 'Club Norte', lang: 'es', heading: '¡Listo! Tu cuenta quedó vinculada.' },
    })
    expect(onLoginOutcome(norte, { kind: 'rejected' }).data).toMatchObject({
      club_id: 'club-norte', club_name: 'Club Norte', error_message: 'Email o contraseña incorrectos', has_error: true
    })
    expect(onLoginOutcome(north, { kind: 'rejected' }).data).toMatchObject({ error_message: 'Incorrect email or password' })
    expect(onLoginOutcome(norte, { kind: 'not-member' }).data).toMatchObject({ error_message: 'Tu cuenta no es socia de Club Norte' })
    expect(onLoginOutcome(norte, { kind: 'rate-limited', retryAfterMs: 14 * 60_000 + 1 }).data).toMatchObject({
      error_message: 'Demasiados intentos. Probá de nuevo en 15 min.'
    })
    expect(onLoginOutcome(norte, { kind: 'rate-limited', retryAfterMs: 10 }).data).toMatchObject({
      error_message: 'Demasiados intentos. Probá de nuevo en 1 min.'
    })
    expect(onLoginOutcome(norte, { kind: 'unavailable' }).data).toMatchObject({ has_error: true })
  })
})

describe('COMPLETE', () => {
  it('answers SUCCESS, echoing the names when given', () => {
    expect(onComplete({ member_name: 'Ana', club_name: 'Club Norte' })).toMatchObject({
      version: '3.0', screen: 'SUCCESS', data: { member_name: 'Ana', club_name: 'Club Norte', lang: 'es' }
    })
    expect(
      onComplete({ member_name: 'Ann', club_name: 'North Club', lang: 'en' }).data
    ).toMatchObject({ heading: 'Done! Your account is linked.', cta: 'Done' })
    expect(onComplete(undefined)).toMatchObject({ version: '3.0', screen: 'SUCCESS', data: { member_name: '', club_name: '' } })
  })
})

describe('properties: the handlers read outside data', () => {
  const anyData = fc.oneof(
    fc.anything(),
    fc.record(
      {
        club_id: fc.oneof(fc.constantFrom('club-norte', 'club-north'), fc.anything()),
        email: fc.oneof(fc.emailAddress(), fc.anything()),
        password: fc.anything()
      },
      { requiredKeys: [] }
    )
  )
  const outcome: fc.Arbitrary<LoginOutcome> = fc.oneof(
    fc.record({ kind: fc.constant('linked' as const), memberName: fc.string() }),
    fc.constantFrom<LoginOutcome>({ kind: 'rejected' }, { kind: 'not-member' }, { kind: 'unavailable' }),
    fc.record({ kind: fc.constant('rate-limited' as const), retryAfterMs: fc.integer({ min: 1, max: 3_600_000 }) })
  )

  it('never throw, and always answer data that fits the screen they name', () => {
    fc.assert(fc.property(anyData, (data) => {
      expect(fits(onClubSelect(data, clubs))).toEqual([])
      expect(fits(onComplete(data))).toEqual([])
      const step = readLogin(data, clubs)
      if (step.kind === 'respond') {
        expect(fits(step.response)).toEqual([])
        expect(step.response.data).toHaveProperty('has_error', true)
      } else {
        expect(clubs).toContain(step.club)
        expect(step.email).toMatch(/@/)
        expect(step.password.length).toBeGreaterThan(0)
      }
    }))
  })

  it('every outcome is an answer that fits its screen; only linked reaches SUCCESS', () => {
    fc.assert(fc.property(fc.constantFrom(norte, north), outcome, (club, o) => {
      const r = onLoginOutcome(club, o)
      expect(fits(r)).toEqual([])
      expect(r.screen).toBe(o.kind === 'linked' ? 'SUCCESS' : 'LOGIN')
    }))
  })
})
