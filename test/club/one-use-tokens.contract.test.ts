import { describe, expect, it } from 'vitest'
import { createOneUseTokens } from '../../src/club/one-use-tokens.ts'
import { contractStore } from '../helper.ts'

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

describe.each(['redis', 'cluster', 'memory'] as const)('one-use token store contract (%s)', (kind) => {
  const opened = contractStore(kind, createOneUseTokens)

  it('a token is taken once, only as its own kind', async () => {
    const tokens = opened()
    const token = await tokens.issue('staff-invite', { email: 'ana@example.com' }, 60_000)
    expect(await tokens.take('member-password', token)).toBeUndefined()
    expect(await tokens.take('staff-invite', token)).toEqual({ email: 'ana@example.com' })
    expect(await tokens.take('staff-invite', token)).toBeUndefined()
    expect(await tokens.take('staff-invite', 'never-issued')).toBeUndefined()
  })

  it('of concurrent takes exactly one gets the record', async () => {
    const tokens = opened()
    const token = await tokens.issue('member-password', { n: 1 }, 60_000)
    const taken = await Promise.all(Array.from({ length: 8 }, async () => await tokens.take('member-password', token)))
    expect(taken.filter((t) => t !== undefined)).toEqual([{ n: 1 }])
  })

  it('a restored token works again until its deadline; one restored past it does not', async () => {
    const tokens = opened()
    const token = await tokens.issue('staff-invite', { n: 2 }, 60_000)
    await tokens.take('staff-invite', token)
    await tokens.restore('staff-invite', token, { n: 2 }, Date.now() + 60_000)
    expect(await tokens.take('staff-invite', token)).toEqual({ n: 2 })
    await tokens.restore('staff-invite', token, { n: 2 }, Date.now() - 1)
    expect(await tokens.take('staff-invite', token)).toBeUndefined()
  })

  it('a token expires with its time to live', async () => {
    const tokens = opened()
    const token = await tokens.issue('staff-invite', { n: 3 }, 20)
    await sleep(60)
    expect(await tokens.take('staff-invite', token)).toBeUndefined()
  })
})
