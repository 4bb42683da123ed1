import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryLinkedAccountStore, RedisLinkedAccountStore } from '../../src/chat/linking/linked-account-store.ts'
import type { LinkedAccount, LinkedAccountStore } from '../../src/chat/linking/types.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import type { ChatStore } from '../../src/chat/store/index.ts'
import { MemoryChatStore } from '../../src/chat/store/memory.ts'
import { keys } from '../../src/stores/keys.ts'
import { testRedis } from '../helper.ts'
import { newPhone } from './support.ts'

// What order updates rely on, on Redis and in memory: the (club, member) -> phones index kept by linking and
// unlinking, the member's on/off choice beside their accounts, and a system message queued once per id.

const account = (tenantId: string, customerId: string): LinkedAccount => ({
  tenantId, tenantName: tenantId, customerId, email: `${customerId}@example.com`, name: customerId, role: 'member', token: 't', linkedAt: 1, expiresAt: 2,
})

const stores: Array<[
  'redis' | 'memory',
  () => Promise<{ chat: ChatStore, links: LinkedAccountStore, redis?: Awaited<ReturnType<typeof testRedis>>['redis'], cleanup: () => Promise<void> }>
]> = [
  ['redis', async () => {
    const r = await testRedis()
    return { chat: new RedisChatStore(r.redis, 8), links: new RedisLinkedAccountStore(r.redis), redis: r.redis, cleanup: r.cleanup }
  }],
  ['memory', async () => ({ chat: new MemoryChatStore(8), links: new MemoryLinkedAccountStore(), cleanup: async () => {} })],
]

describe.each(stores)('order update stores (%s)', (_name, make) => {
  let s: Awaited<ReturnType<typeof make>>
  beforeAll(async () => { s = await make() })
  afterAll(async () => { await s.cleanup() })

  it('the index follows linking, relinking to another member and unlinking', async () => {
    const [a, b] = [newPhone(), newPhone()]
    await s.links.put(a, account('club-norte', 'cus_1'))
    await s.links.put(b, account('club-norte', 'cus_1'))
    await s.links.put(b, account('club-sur', 'cus_1'))
    expect(await s.links.phonesOf('club-norte', 'cus_1')).toEqual([a, b].sort())
    await s.links.put(a, account('club-norte', 'cus_2'))
    expect(await s.links.phonesOf('club-norte', 'cus_1')).toEqual([b])
    expect(await s.links.phonesOf('club-norte', 'cus_2')).toEqual([a])
    await s.links.remove(b, 'club-norte')
    expect(await s.links.phonesOf('club-norte', 'cus_1')).toEqual([])
    expect(await s.links.phonesOf('club-sur', 'cus_1')).toEqual([b])
    expect(await s.links.phonesOf('club-norte', 'cus_nobody')).toEqual([])
  })

  it('a stale index entry (a crash between the two writes) names no phone', async () => {
    if (!s.redis) return
    const phone = newPhone()
    await s.redis.sadd(keys.chat.linking.members('club-norte', 'cus_stale'), phone)
    expect(await s.links.phonesOf('club-norte', 'cus_stale')).toEqual([])
  })

  it('updates on by default, off and on per club, beside the accounts without being one', async () => {
    const phone = newPhone()
    await s.links.put(phone, account('club-norte', 'cus_3'))
    expect(await s.links.updatesOn(phone, 'club-norte')).toBe(true)
    await s.links.setUpdates(phone, 'club-norte', false)
    expect(await s.links.updatesOn(phone, 'club-norte')).toBe(false)
    expect(await s.links.updatesOn(phone, 'club-sur')).toBe(true)
    expect((await s.links.list(phone)).map((x) => x.tenantId)).toEqual(['club-norte'])
    await s.links.put(phone, account('club-sur', 'cus_3'))
    expect(await s.links.links(phone)).toEqual({ accounts: await s.links.list(phone), updatesOff: ['club-norte'] })
    await s.links.setUpdates(phone, 'club-norte', true)
    expect(await s.links.updatesOn(phone, 'club-norte')).toBe(true)
    expect((await s.links.links(phone)).updatesOff).toEqual([])
    // a setting left without its account (unlinked elsewhere) is no club of the phone's
    await s.links.setUpdates(phone, 'club-este', false)
    expect((await s.links.links(phone)).updatesOff).toEqual([])
  })

  it('a system message is queued once per id, behind what the outbox holds, in any order of ids', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 12 }), async (ids) => {
      const phone = newPhone()
      const queued: string[] = []
      for (const id of ids) if (await s.chat.enqueueSystem(phone, id, JSON.stringify({ id }))) queued.push(id)
      expect(queued).toEqual([...new Set(ids)])
      const drained: string[] = []
      const taken = await s.chat.takeSend(phone, 'w', 10_000)
      let entry = taken.kind === 'ok' ? taken.work.entry : undefined
      while (entry !== undefined) {
        drained.push((JSON.parse(entry) as { id: string }).id)
        const next = await s.chat.sent(phone, 'w', entry, 10_000)
        entry = next.kind === 'more' ? next.work.entry : undefined
      }
      expect(drained).toEqual(queued)
    }), { numRuns: 20 })
  })

  it('the same id queued by many callers at once (racing instances) is queued once', async () => {
    const phone = newPhone()
    const answers = await Promise.all(Array.from({ length: 20 }, async () => await s.chat.enqueueSystem(phone, 'order.shipped:order_1', '{}')))
    expect(answers.filter(Boolean)).toHaveLength(1)
  })

  it('the last inbound moment is the latest noted', async () => {
    const phone = newPhone()
    expect(await s.chat.lastInbound(phone)).toBeUndefined()
    await s.chat.accept([{ phone, id: `a-${phone}`, body: '{}' }, { phone, id: `b-${phone}`, body: '{}' }], { at: 1_000 })
    await s.chat.accept([{ phone, id: `c-${phone}`, body: '{}' }], { at: 5_000 })
    expect(await s.chat.lastInbound(phone)).toBe(5_000)
  })
})
