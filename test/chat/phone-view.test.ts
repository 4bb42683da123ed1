import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Handoff } from '../../machines/handoff.ts'
import { MemoryInboxStore } from '../../src/chat/inbox/store.ts'
import { MemoryLinkedAccountStore } from '../../src/chat/linking/linked-account-store.ts'
import { phoneViewReader } from '../../src/chat/phone-view.ts'

// The phone's view reads the handoff flag of the turn's club beside the accounts: the club the caller names, else the
// one the phone's last turn here asked for. Whatever was read beforehand, the gate gets the flag of the club it asks.

function records () {
  const conversations = new MemoryInboxStore(1, { historyMs: 60_000, historyMax: 10 }, () => 0)
  const reads: string[] = []
  const counted = {
    handoffOf: async (tenantId: string, phone: string) => {
      reads.push(`${tenantId} ${phone}`)
      return await conversations.handoffOf(tenantId, phone)
    }
  }
  return { conversations, reads, records: { linkedAccounts: new MemoryLinkedAccountStore(), conversations: counted } }
}

const taken = (by: string): Handoff => ({ status: 'taken', by, at: 1 })

describe('phone views', () => {
  it('read the named club\'s flag with the accounts, and the phone\'s last club when none is named', async () => {
    const { conversations, reads, records: r } = records()
    const read = phoneViewReader(r)
    await read('p1')
    expect(reads).toEqual([])
    await conversations.setHandoff('club-a', 'p1', undefined, taken('staff-1'))
    const named = await read('p1', 'club-a')
    expect(reads).toEqual(['club-a p1'])
    expect(await named.handoff('club-a')).toEqual(taken('staff-1'))
    expect(reads).toHaveLength(1)
    // the next turn's view (read beside the take, no club known) brings the same club's flag as it is then
    await conversations.setHandoff('club-a', 'p1', taken('staff-1'), undefined)
    const next = await read('p1')
    expect(reads).toEqual(['club-a p1', 'club-a p1'])
    expect(await next.handoff('club-a')).toBeUndefined()
    expect(reads).toHaveLength(2)
  })

  it('read another club when the gate asks for it, and remember that one for the phone', async () => {
    const { conversations, reads, records: r } = records()
    const read = phoneViewReader(r)
    await read('p1', 'club-a')
    await conversations.setHandoff('club-b', 'p1', undefined, taken('staff-2'))
    const view = await read('p1')
    expect(await view.handoff('club-b')).toEqual(taken('staff-2'))
    expect(reads).toEqual(['club-a p1', 'club-a p1', 'club-b p1'])
    await read('p1')
    expect(reads.at(-1)).toBe('club-b p1')
  })

  it('remember at most `kept` phones, dropping the one asked about least recently', async () => {
    const { reads, records: r } = records()
    const read = phoneViewReader(r, 2)
    await read('p1', 'club-a')
    await read('p2', 'club-a')
    await read('p1')
    await read('p3', 'club-a')
    reads.length = 0
    for (const phone of ['p1', 'p2', 'p3']) await read(phone)
    expect(reads).toEqual(['club-a p1', 'club-a p3'])
  })

  it('give the gate the flag the club\'s conversation has when the view is read, one read for it at most (property)', async () => {
    const phone = fc.constantFrom('p1', 'p2', 'p3')
    const club = fc.constantFrom('club-a', 'club-b')
    const op = fc.oneof(
      fc.record({ kind: fc.constant('flag' as const), phone, club, by: fc.option(fc.constantFrom('s1', 's2')) }),
      fc.record({ kind: fc.constant('turn' as const), phone, named: fc.option(club), asks: club })
    )
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.integer({ min: 1, max: 3 }), async (ops, kept) => {
      const { conversations, reads, records: r } = records()
      const read = phoneViewReader(r, kept)
      for (const o of ops) {
        if (o.kind === 'flag') {
          const now = await conversations.handoffOf(o.club, o.phone)
          await conversations.setHandoff(o.club, o.phone, now, o.by === null ? undefined : taken(o.by))
          continue
        }
        const before = reads.length
        const view = await read(o.phone, o.named ?? undefined)
        const expected = await conversations.handoffOf(o.asks, o.phone)
        expect(await view.handoff(o.asks)).toEqual(expected)
        expect(await view.handoff(o.asks)).toEqual(expected)
        const forAsked = reads.slice(before).filter((x) => x === `${o.asks} ${o.phone}`)
        expect(forAsked).toHaveLength(1)
        expect(reads.length - before).toBeLessThanOrEqual(2)
      }
    }))
  })

  it('do not fail the process when a flag read for a club the turn never asks about fails', async () => {
    const { records: r } = records()
    const failing = { ...r, conversations: { handoffOf: async () => { throw new Error('redis down') } } }
    const read = phoneViewReader(failing)
    await expect((await read('p1', 'club-a')).handoff('club-a')).rejects.toThrow('redis down')
    const view = await read('p1')
    await new Promise((resolve) => setImmediate(resolve))
    expect(view.accounts).toEqual([])
  })
})
