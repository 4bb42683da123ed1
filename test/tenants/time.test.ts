import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalTimeZone, zonedDay, zonedDayStartMs, zonedTime } from '../../src/tenants/time.ts'
import { addDays } from '../../src/content/model.ts'

const ZONES = ['America/Argentina/Buenos_Aires', 'Europe/Madrid', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC', 'Australia/Lord_Howe']
const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2060, 0, 1) })

describe('club calendar', () => {
  it('every instant lies within its zoned day, which starts on that day', () => {
    fc.assert(fc.property(instant, fc.constantFrom(...ZONES), (ms, zone) => {
      const day = zonedDay(ms, zone)
      const start = zonedDayStartMs(day, zone)
      const next = zonedDayStartMs(addDays(day, 1), zone)
      expect(start).toBeLessThanOrEqual(ms)
      expect(ms).toBeLessThan(next)
      expect(zonedDay(start, zone)).toBe(day)
      expect(zonedTime(start, zone)).toMatch(/^0[0-1]:\d\d$/)
    }))
  })

  it('a day in Buenos Aires starts at 03:00 UTC; 01:00 UTC is still yesterday there', () => {
    expect(new Date(zonedDayStartMs('2026-11-25', 'America/Argentina/Buenos_Aires')).toISOString()).toBe('2026-11-25T03:00:00.000Z')
    expect(zonedDay(Date.parse('2026-11-25T01:00:00Z'), 'America/Argentina/Buenos_Aires')).toBe('2026-11-24')
    expect(zonedTime(Date.parse('2026-11-25T13:30:00Z'), 'America/Argentina/Buenos_Aires')).toBe('10:30')
  })

  it('takes IANA names in their canonical spelling and refuses offsets, abbreviations and unknown names', () => {
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York')
    expect(canonicalTimeZone('asia/kolkata')).toBe('Asia/Kolkata')
    expect(canonicalTimeZone('america/argentina/buenos_aires')).toBe('America/Argentina/Buenos_Aires')
    expect(canonicalTimeZone('UTC')).toBe('UTC')
    for (const bad of ['+03:00', 'GMT-3', 'ART', 'Mars/Olympus_Mons', '', 'America/']) expect(canonicalTimeZone(bad)).toBeUndefined()
  })
})
