import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Review item 3: whether an account exists must not show in the answer nor in its time. Measured end to end
// against the embedded commerce backend (real scrypt), known and unknown emails interleaved; the bound is a
// generous ratio of medians, never an absolute time.

const ROUNDS = 15

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

describe('login timing: known and unknown emails', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  const timedLogin = async (actor: 'customer' | 'user', email: string): Promise<{ ms: number, status: number, body: string }> => {
    // the lock is not what is measured here: start each try with a fresh count
    await t.redis?.del(keys.accounts.loginAttempts(email))
    const started = process.hrtime.bigint()
    const res = await t.app.inject({ method: 'POST', url: `/auth/${actor}/emailpass`, payload: { email, password: 'not-the-password' } })
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode, body: res.body }
  }

  it.each([
    ['user', 'admin@club-norte.test', 'no-such-admin@club-norte.test'],
    ['customer', 'ana@example.com', 'no-such-member@example.com'],
  ] as const)('%s: %s and %s answer alike, medians within 2x', async (actor, known, unknown) => {
    await timedLogin(actor, known)
    await timedLogin(actor, unknown)
    const times = { known: [] as number[], unknown: [] as number[] }
    for (let i = 0; i < ROUNDS; i++) {
      for (const [kind, email] of [['known', known], ['unknown', unknown]] as const) {
        const r = await timedLogin(actor, email)
        expect([r.status, JSON.parse(r.body)]).toEqual([401, { error: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } }])
        times[kind].push(r.ms)
      }
    }
    const ratio = median(times.unknown) / median(times.known)
    console.info(
      `${actor} login medians: known ${median(times.known).toFixed(1)} ms, unknown ${median(times.unknown).toFixed(1)} ms, ratio ${ratio.toFixed(2)}`
    )
    expect(ratio).toBeGreaterThan(0.5)
    expect(ratio).toBeLessThan(2)
  })
})
