import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryMailbox, RedisMailbox, type Mailbox } from '../../src/chat/mailbox.ts'
import { MemorySessionStore, RedisSessionStore, type SessionStore } from '../../src/chat/sessions.ts'
import { testRedis } from '../helper.ts'
import { newPhone } from './support.ts'

// The same contract on Redis and in memory: leases, order, redelivery after a crash, compare-and-set.

const stores: Array<['redis' | 'memory', () => Promise<{ mailbox: Mailbox, sessions: SessionStore, cleanup: () => Promise<void> }>]> = [
  ['redis', async () => {
    const r = await testRedis()
    return { mailbox: new RedisMailbox(r.redis), sessions: new RedisSessionStore(r.redis), cleanup: r.cleanup }
  }],
  ['memory', async () => ({ mailbox: new MemoryMailbox(), sessions: new MemorySessionStore(), cleanup: async () => {} })],
]

describe.each(stores)('chat mailbox and sessions (%s)', (_name, make) => {
  let mailbox: Mailbox
  let sessions: SessionStore
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ mailbox, sessions, cleanup } = await make()) })
  afterAll(async () => { await cleanup() })

  it('keeps arrival order and drops a message id seen before', async () => {
    const phone = newPhone()
    expect(await mailbox.accept([{ phone, id: `${phone}-1`, body: 'one' }])).toBe(1)
    expect(await mailbox.accept([{ phone, id: `${phone}-1`, body: 'one again' }, { phone, id: `${phone}-2`, body: 'two' }])).toBe(1)
    let owner: string | undefined
    while (owner !== phone) owner = await mailbox.claim('w1', 10_000)
    expect(await mailbox.head(phone)).toBe('one')
    expect(await mailbox.ack(phone, 'w1', 10_000)).toBe('more')
    expect(await mailbox.head(phone)).toBe('two')
    expect(await mailbox.ack(phone, 'w1', 10_000)).toBe('done')
    expect(await mailbox.pending(phone)).toBe(false)
  })

  it('a leased phone is not claimed twice; after a crash its message is taken again', async () => {
    const phone = newPhone()
    await mailbox.accept([{ phone, id: `${phone}-x`, body: 'x' }])
    let got: string | undefined
    while (got !== phone) got = await mailbox.claim('dies', 60)
    expect(await mailbox.claim('other', 60)).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect(await mailbox.claim('other', 10_000)).toBe(phone)
    expect(await mailbox.head(phone)).toBe('x')
    expect(await mailbox.ack(phone, 'dies', 10_000)).toBe('lost')
    expect(await mailbox.ack(phone, 'other', 10_000)).toBe('done')
  })

  it('accepts a delivery key once, with all its letters, across phones, in order', async () => {
    const [a, b] = [newPhone(), newPhone()]
    const key = `k-${a}`
    const letters = [{ phone: a, id: `${a}-1`, body: 'a1' }, { phone: b, id: `${b}-1`, body: 'b1' }, { phone: a, id: `${a}-2`, body: 'a2' }]
    expect(await mailbox.accept(letters, key)).toBe(3)
    // the same key again stores nothing, even with a letter never seen
    expect(await mailbox.accept([{ phone: a, id: `${a}-3`, body: 'a3' }], key)).toBe(0)
    expect(await mailbox.pending(b)).toBe(true)
    let owner: string | undefined
    while (owner !== a) owner = await mailbox.claim(`w-${a}`, 10_000)
    expect(await mailbox.head(a)).toBe('a1')
    expect(await mailbox.ack(a, `w-${a}`, 10_000)).toBe('more')
    expect(await mailbox.head(a)).toBe('a2')
    expect(await mailbox.ack(a, `w-${a}`, 10_000)).toBe('done')
  })

  it('saves a session only over the version it read', async () => {
    const phone = newPhone()
    expect(await sessions.load(phone)).toEqual({ version: 0, doc: undefined })
    expect(await sessions.save(phone, 0, 'a')).toBe(1)
    expect(await sessions.save(phone, 0, 'b')).toBeUndefined()
    const racing = await Promise.all([sessions.save(phone, 1, 'c'), sessions.save(phone, 1, 'd')])
    expect(racing.filter((v) => v === 2)).toHaveLength(1)
    expect((await sessions.load(phone)).version).toBe(2)
  })
})
