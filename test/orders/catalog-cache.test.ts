import { describe, expect, it } from 'vitest'
import { CatalogCache } from '../../src/commerce/catalog-cache.ts'

// The staleness bound of the kept catalog, on a clock the test moves.

describe('CatalogCache', () => {
  const TTL = 30_000
  const setup = (ttl = TTL) => {
    let now = 1_000_000
    let loads = 0
    const cache = new CatalogCache<string>(ttl, () => now)
    const load = (value: string) => async () => { loads++; return value }
    return { cache, load, loads: () => loads, advance: (ms: number) => { now += ms } }
  }

  it('answers the kept copy until it is TTL old, then reads again', async () => {
    const { cache, load, loads, advance } = setup()
    expect(await cache.get('club-a', 's', load('v1'))).toBe('v1')
    advance(TTL - 1)
    expect(await cache.get('club-a', 's', load('v2'))).toBe('v1')
    expect(loads()).toBe(1)
    advance(1)
    expect(await cache.get('club-a', 's', load('v2'))).toBe('v2')
    expect(loads()).toBe(2)
  })

  it('keeps each club apart, and reads afresh when the club\'s settings changed', async () => {
    const { cache, load, loads } = setup()
    await cache.get('club-a', 's', load('a'))
    expect(await cache.get('club-b', 's', load('b'))).toBe('b')
    expect(await cache.get('club-a', 's', load('x'))).toBe('a')
    expect(await cache.get('club-a', 'other channel', load('a2'))).toBe('a2')
    expect(loads()).toBe(3)
  })

  it('callers that miss at the same time share one read', async () => {
    const { cache } = setup()
    let release = (_: string) => {}
    let started = 0
    const slow = async () => { started++; return await new Promise<string>((resolve) => { release = resolve }) }
    const all = Promise.all([cache.get('club-a', 's', slow), cache.get('club-a', 's', slow), cache.get('club-a', 's', slow)])
    release('v')
    expect(await all).toEqual(['v', 'v', 'v'])
    expect(started).toBe(1)
  })

  it('does not keep a failed read: the next caller reads again', async () => {
    const { cache, load, loads } = setup()
    await expect(cache.get('club-a', 's', async () => { throw new Error('backend down') })).rejects.toThrow('backend down')
    expect(await cache.get('club-a', 's', load('v'))).toBe('v')
    expect(loads()).toBe(1)
  })

  it('with a TTL of 0 keeps nothing', async () => {
    const { cache, load, loads } = setup(0)
    await cache.get('club-a', 's', load('v1'))
    expect(await cache.get('club-a', 's', load('v2'))).toBe('v2')
    expect(loads()).toBe(2)
  })
})
