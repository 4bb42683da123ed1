import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { asksForPerson, choosesPerson, botSilent, needsPerson, parseHandoff, requestHandoff, takeOver, timedOut, type Handoff } from '../../machines/handoff.ts'

const TIMEOUT = 15 * 60_000

describe('handoff flag', () => {
  it('a request waits until its deadline, then the bot answers again', () => {
    const flag = requestHandoff(undefined, 1_000, TIMEOUT)
    expect(flag).toEqual({ status: 'requested', at: 1_000, deadline: 1_000 + TIMEOUT })
    expect(needsPerson(flag, 1_000 + TIMEOUT - 1)).toBe(true)
    expect(botSilent(flag, 1_000 + TIMEOUT - 1)).toBe(true)
    expect(timedOut(flag, 1_000 + TIMEOUT)).toBe(true)
    expect(botSilent(flag, 1_000 + TIMEOUT)).toBe(false)
    expect(requestHandoff(flag, 1_000 + TIMEOUT, TIMEOUT)).toEqual({ status: 'requested', at: 1_000 + TIMEOUT, deadline: 1_000 + 2 * TIMEOUT })
  })

  it('taken once: a second staff member is told who holds it; the holder may take it again', () => {
    const taken = takeOver(requestHandoff(undefined, 0, TIMEOUT), 'user_a', 5)
    expect(taken).toEqual({ kind: 'ok', flag: { status: 'taken', by: 'user_a', at: 5 } })
    const flag = (taken as { flag: Handoff }).flag
    expect(takeOver(flag, 'user_b', 6)).toEqual({ kind: 'held', by: 'user_a' })
    expect(takeOver(flag, 'user_a', 7)).toEqual({ kind: 'ok', flag })
    expect(timedOut(flag, Number.MAX_SAFE_INTEGER)).toBe(false)
    expect(requestHandoff(flag, 8, TIMEOUT)).toBe(flag)
  })

  it('recognises a person asked for in either language, not product words', () => {
    for (const t of [
      'persona', 'Quiero hablar con un HUMANO', 'agent please', 'agénte', 'human', 'Talk to a person', 'person', 'can I talk to people?'
    ]) expect(asksForPerson(t)).toBe(true)
    for (const t of ['hola', 'quiero 2 aceite', 'personal', 'agenda', '']) expect(asksForPerson(t)).toBe(false)
  })

  it('the menu row chosen, or its number typed, asks for a person; another number does not', () => {
    const options = ['menu:browse', 'menu:person']
    expect(choosesPerson({ kind: 'reply', id: 'menu:person' }, [])).toBe(true)
    expect(choosesPerson({ kind: 'text', text: ' 2 ' }, options)).toBe(true)
    expect(choosesPerson({ kind: 'text', text: '1' }, options)).toBe(false)
    expect(choosesPerson({ kind: 'text', text: 'humano' }, options)).toBe(true)
    expect(choosesPerson({ kind: 'unsupported' }, options)).toBe(false)
  })

  const flagArb: fc.Arbitrary<Handoff | undefined> = fc.oneof(
    fc.constant(undefined),
    fc.record({ status: fc.constant('requested' as const), at: fc.nat(1e9), deadline: fc.nat(2e9) }),
    fc.record({ status: fc.constant('taken' as const), by: fc.constantFrom('user_a', 'user_b'), at: fc.nat(1e9) })
  )
  type Op = { op: 'request' | 'take' | 'back', who: string, dt: number }
  const opArb: fc.Arbitrary<Op> = fc.record({
    op: fc.constantFrom('request', 'take', 'back'), who: fc.constantFrom('user_a', 'user_b'), dt: fc.nat(TIMEOUT * 2)
  })

  it('property: any sequence keeps one holder at most, a holder is only replaced after a hand back, and the flag survives its encoding', () => {
    fc.assert(fc.property(flagArb, fc.array(opArb, { maxLength: 30 }), (start, ops) => {
      let flag = start
      let now = 2e9
      for (const { op, who, dt } of ops) {
        now += dt
        const before = flag
        if (op === 'request') flag = requestHandoff(flag, now, TIMEOUT)
        else if (op === 'back') flag = undefined
        else {
          const r = takeOver(flag, who, now)
          if (r.kind === 'held') {
            expect(before?.status === 'taken' && before.by === r.by && r.by !== who).toBe(true)
          } else flag = r.flag
        }
        if (before?.status === 'taken' && op !== 'back') expect(flag).toBe(before)
        if (flag) expect(parseHandoff(JSON.stringify(flag))).toEqual(flag)
        // the bot is silent exactly when a person is asked for in time, or holds the conversation
        expect(botSilent(flag, now)).toBe(flag?.status === 'taken' || needsPerson(flag, now))
      }
    }))
  })

  it('property: anything unreadable is no flag', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      const parsed = parseHandoff(s)
      if (parsed) expect(['requested', 'taken']).toContain(parsed.status)
    }))
    expect(parseHandoff('{"status":"taken"}')).toBeUndefined()
  })
})
