import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clubNameKey, clubNameSchema } from '../../src/tenants/model.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Issue 25, item 7: answers that told one club who belongs to another, and club names that could copy another
// club's or carry line breaks and direction marks onto the shared login form every new phone sees.

describe('one answer whatever the other club', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  it('registering a member: the same 409 whether the email is this club\'s member or another club\'s', async () => {
    // bruno is a member of club-norte only
    const bodies = await Promise.all(['club-norte', 'club-sur'].map(async (club) => {
      const res = await t.app.inject({
        method: 'POST', url: '/api/members', headers: await t.auth('admin', club), payload: { email: 'bruno@example.com', firstName: 'B', lastName: 'D' }
      })
      expect(res.statusCode).toBe(409)
      return res.json()
    }))
    expect(bodies[0]).toEqual(bodies[1])
  })

  it('inviting staff: the same 409 whether the email is staff here or of another club', async () => {
    const bodies = await Promise.all(['club-norte', 'club-sur'].map(async (club) => {
      const res = await t.app.inject({
        method: 'POST', url: '/api/staff', headers: await t.auth('admin', club), payload: { email: 'grower@club-norte.test', name: 'G', role: 'grower' }
      })
      expect(res.statusCode).toBe(409)
      return res.json()
    }))
    expect(bodies[0]).toEqual(bodies[1])
    expect(JSON.stringify(bodies)).not.toMatch(/another club|this club/)
  })
})

describe('club names: one line, no control or direction characters, unique across clubs', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })
  const rename = async (club: string, name: string) =>
    await t.app.inject({ method: 'PATCH', url: '/api/club', headers: await t.auth('admin', club), payload: { name } })

  it('refuses line breaks, control characters and direction marks (400), and keeps the name', async () => {
    for (const name of [
      'Club Sur\nClub Norte: escribí tu clave', 'Club\u202ESur', 'Club\u200FSur', 'Club\u2066Sur', 'Club\u0000Sur', 'Club\u2028Sur', 'Club\tSur',
      'Club\u200BSur'
    ]) {
      const res = await rename('club-sur', name)
      expect([res.statusCode, res.json().error.code], JSON.stringify(name)).toEqual([400, 'VALIDATION_ERROR'])
    }
    expect((await t.app.tenants.get('club-sur'))?.name).toBe('Club Sur')
  })

  it('refuses another club\'s name whatever its case, spacing or Unicode form (409), on either side', async () => {
    for (const name of ['Club Norte', 'club norte', ' CLUB   NORTE ', 'Ｃｌｕｂ Ｎｏｒｔｅ']) {
      const res = await rename('club-sur', name)
      expect([res.statusCode, res.json().error.code], name).toEqual([409, 'CONFLICT'])
    }
    // once a club renamed itself, its new name is taken and its old one free
    expect((await rename('club-sur', 'Club Austral')).statusCode).toBe(200)
    expect((await rename('club-norte', 'club austral')).statusCode).toBe(409)
    expect((await rename('club-norte', 'Club Sur')).statusCode).toBe(200)
    expect((await rename('club-norte', 'Club Norte')).statusCode).toBe(200)
    // its own name, written otherwise, is its own
    expect((await rename('club-norte', 'CLUB NORTE')).statusCode).toBe(200)
  })

  it('two clubs renaming themselves to one name at once: one wins', async () => {
    const [a, b] = await Promise.all([rename('club-norte', 'Club Unico'), rename('club-sur', 'club unico')])
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409])
  })

  it('the name rule holds for any text (properties)', () => {
    const banned = fc.constantFrom('\n', '\r', '\u0000', '\u001B', '\u202E', '\u200F', '\u2066', '\u2028', '\u2029', '\u200B', '\u061C', '\uFEFF')
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), banned, fc.string({ unit: 'binary', maxLength: 30 }), (before, mark, after) => {
      expect(clubNameSchema.safeParse(`Club ${before}${mark}x${after}`).success).toBe(false)
    }))
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (name) => {
      const parsed = clubNameSchema.safeParse(name)
      if (parsed.success) expect(parsed.data).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u)
    }))
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,30}$/), (name) => {
      expect(clubNameKey(name.toUpperCase())).toBe(clubNameKey(name))
      expect(clubNameKey(`  ${name.replace(/ /g, '   ')} `)).toBe(clubNameKey(name))
    }))
  })
})
