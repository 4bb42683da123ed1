import { describe, expect, it } from 'vitest'
import flow from '../../flows/login.flow.json' with { type: 'json' }
import { clubSelectScreen, loginScreen } from '../../flows/screens/club-select.ts'
import { onComplete } from '../../flows/screens/complete.ts'
import { onLoginOutcome, readLogin } from '../../flows/screens/login.ts'
import type { Club, FlowResponse } from '../../flows/types.ts'
import { matchesScreen } from './screen-data.ts'

const norte: Club = { id: 'club-norte', name: 'Club Norte', locale: 'es' }

interface Component { type: string, name?: string, text?: string, [key: string]: unknown }
const screenById = (id: string) => {
  const s = flow.screens.find((x) => x.id === id)
  if (!s) throw new Error(`no screen ${id}`)
  return s
}
const children = (id: string): Component[] => screenById(id).layout.children as Component[]
const references = (value: unknown, kind: 'data' | 'form'): string[] =>
  [...JSON.stringify(value).matchAll(new RegExp(`\\$\\{${kind}\\.([a-z_]+)\\}`, 'g'))].map((m) => m[1] as string)
const footerPayload = (id: string): Record<string, string> => {
  const footer = children(id).find((c) => c.type === 'Footer') as unknown as { 'on-click-action': { payload: Record<string, string> } }
  return footer['on-click-action'].payload
}

describe('login Flow JSON', () => {
  it('is a version 6.x flow on data API 3.0 routed CLUB_SELECT -> LOGIN -> SUCCESS', () => {
    expect(flow.version).toMatch(/^6\.\d+$/)
    expect(flow.data_api_version).toBe('3.0')
    expect(flow.routing_model).toEqual({ CLUB_SELECT: ['LOGIN'], LOGIN: ['SUCCESS'], SUCCESS: [] })
    expect(flow.screens.map((s) => s.id)).toEqual(['CLUB_SELECT', 'LOGIN', 'SUCCESS'])
    expect(screenById('SUCCESS')).toMatchObject({ terminal: true, success: true })
  })

  it('every screen reference names a declared data field or an input of that screen, and every data field has an example', () => {
    for (const s of flow.screens) {
      const declared = Object.keys(s.data)
      for (const name of references(s.layout, 'data')) expect(declared).toContain(name)
      const inputs = (s.layout.children as Component[]).flatMap((c) => c.name ? [c.name] : [])
      for (const name of references(s.layout, 'form')) expect(inputs).toContain(name)
      for (const field of Object.values(s.data)) expect(field).toHaveProperty('__example__')
    }
  })

  it('the footers send what the handlers read', () => {
    expect(Object.keys(footerPayload('CLUB_SELECT')).sort()).toEqual(['club_id', 'lang'])
    expect(Object.keys(footerPayload('LOGIN')).sort()).toEqual(['club_id', 'email', 'lang', 'password'])
    expect(children('LOGIN').find((c) => c.name === 'password')).toMatchObject({ 'input-type': 'password' })
    // the payload shapes, filled in, are understood by the handlers
    expect(readLogin({ club_id: norte.id, email: 'ana@example.com', password: 'pw' }, [norte])).toMatchObject({ kind: 'authenticate' })
  })

  it('every text the member reads comes from the screen data, so the form speaks both languages', () => {
    for (const s of flow.screens) {
      for (const c of s.layout.children as Component[]) {
        for (const key of ['text', 'label'] as const) {
          const value = c[key]
          if (typeof value === 'string' && value !== 'Email' && value !== 'Club') expect(value, `${s.id} ${c.type}.${key}`).toMatch(/^\$\{data\./)
        }
      }
    }
  })

  it('every handler answers data of the shape its screen declares', () => {
    const answers: FlowResponse[] = [
      clubSelectScreen([norte]),
      clubSelectScreen([norte], 'error'),
      loginScreen(norte),
      loginScreen(norte, 'error'),
      onLoginOutcome(norte, { kind: 'linked', memberName: 'Ana' }),
      onLoginOutcome(norte, { kind: 'rejected' }),
      onComplete({}),
    ]
    for (const answer of answers) {
      expect(answer.version).toBe('3.0')
      expect(matchesScreen(screenById(answer.screen).data, answer.data)).toEqual([])
    }
  })
})
