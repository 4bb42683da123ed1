import { describe, expect, it } from 'vitest'
import { ExpiringMap } from '../../src/stores/expiring-map.ts'

describe('ExpiringMap', () => {
  it('forgets an entry at its deadline, as a Redis key with PX or PXAT', () => {
    let now = 1_000
    const map = new ExpiringMap<string>(() => now)
    map.set('a', 'x', 100)
    map.setUntil('b', 'y', 1_050)
    now = 1_049
    expect([map.get('a'), map.get('b')]).toEqual(['x', 'y'])
    now = 1_050
    expect([map.get('a'), map.get('b')]).toEqual(['x', undefined])
    now = 1_100
    expect(map.entry('a')).toBeUndefined()
  })

  it('takes an entry once, and a deadline already past writes nothing', () => {
    let now = 0
    const map = new ExpiringMap<number>(() => now)
    map.set('a', 1, 10)
    expect(map.take('a')).toBe(1)
    expect(map.take('a')).toBeUndefined()
    map.set('b', 2, 10)
    map.setUntil('b', 3, now)
    expect(map.get('b')).toBeUndefined()
    now = 5
    map.set('c', 4, 10)
    expect(map.entry('c')).toEqual({ value: 4, expiresAt: 15 })
  })
})
