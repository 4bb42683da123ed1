import { describe, expect, it } from 'vitest'
import { signAccessToken, verifyAccessToken } from '../../src/auth/tokens.ts'
import { VerifiedTokens } from '../../src/embedded-commerce/tokens.ts'
import { TEST_SECRETS } from '../helper.ts'

// The embedded backend keeps the tokens that verified until they expire; the real check is counted.

describe('VerifiedTokens', () => {
  const secret = TEST_SECRETS.JWT_SECRET
  const setup = (max = 10_000) => {
    let now = Date.now()
    let checks = 0
    const tokens = new VerifiedTokens(async (token) => { checks++; return await verifyAccessToken(secret, token) }, max, () => now)
    return { tokens, checks: () => checks, advance: (ms: number) => { now += ms } }
  }
  const member = async (sub = 'cus_ana', expiresIn = 3600) =>
    `Bearer ${await signAccessToken(secret, { sub, role: 'member', tenants: ['club-norte'] }, expiresIn)}`

  it('checks a token once until it expires, then checks it again', async () => {
    const { tokens, checks, advance } = setup()
    const bearer = await member('cus_ana', 60)
    const first = await tokens.contextOf(bearer)
    expect(first).toEqual({ type: 'customer', id: 'cus_ana', role: 'member', tenants: ['club-norte'] })
    first?.tenants.push('changed by a caller')
    expect(await tokens.contextOf(bearer)).toEqual({ type: 'customer', id: 'cus_ana', role: 'member', tenants: ['club-norte'] })
    expect(checks()).toBe(1)
    advance(61_000)
    await tokens.contextOf(bearer)
    expect(checks()).toBe(2)
  })

  it('keeps no token that failed: an expired or forged one is refused every time', async () => {
    const { tokens, checks } = setup()
    const expired = await member('cus_ana', -10)
    const forged = `${await member('cus_bruno')}x`
    for (const bearer of [expired, expired, forged, forged]) await expect(tokens.contextOf(bearer)).rejects.toMatchObject({ status: 401 })
    expect(checks()).toBe(4)
    expect(await tokens.contextOf(undefined)).toBeUndefined()
  })

  it('holds at most `max` tokens, the oldest going first', async () => {
    const { tokens, checks } = setup(2)
    const [a, b, c] = [await member('a'), await member('b'), await member('c')]
    for (const bearer of [a, b, c, b, c]) await tokens.contextOf(bearer)
    expect(checks()).toBe(3)
    await tokens.contextOf(a)
    expect(checks()).toBe(4)
  })
})
