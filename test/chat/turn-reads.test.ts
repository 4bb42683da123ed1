import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { accountRef } from '../../src/chat/effects.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, newPhone, outbox, say, textOf, type Input } from './support.ts'

// What one turn reads of the phone's records, counted from outside with MONITOR on the test Redis: the
// commands the service sent (not those its scripts ran), in the order Redis ran them.

interface Seen { args: string[], source: string }

describe('reads of one chat turn (redis, MONITOR)', () => {
  let t: TestApp
  let monitor: Redis
  let seen: Seen[] | undefined
  let marks = 0
  beforeAll(async () => {
    t = await buildTestApp({ store: 'redis' })
    monitor = await new Redis(inject('redisUrl')).monitor()
    monitor.on('monitor', (_time: string, args: string[], source: string) => { seen?.push({ args, source }) })
  })
  afterAll(async () => {
    monitor.disconnect()
    await t.close()
  })

  const prefix = (): string => t.config.redisKeyPrefix
  const key = (name: string): string => `${prefix()}${name}`
  const conversationKey = (phone: string) => key(keys.chat.bot.conversation(shardOf(phone, t.config.chat.shards), 'club-norte', phone))

  /** The service's commands while the turn ran (until a marker it sends after the turn came through MONITOR). */
  const commandsOf = async (run: () => Promise<void>): Promise<Seen[]> => {
    seen = []
    await run()
    const mark = `turn-reads-${++marks}-${randomUUID()}`
    await t.app.redis!.echo(mark)
    for (let i = 0; i < 200 && !seen.some((s) => s.args[1] === mark); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    const got = seen.filter((s) => s.source !== 'lua')
    seen = undefined
    return got
  }
  const count = (commands: Seen[], name: string, k: string) => commands.filter((c) => c.args[0]?.toLowerCase() === name && c.args[1] === k).length

  /** What one input made the service read of the phone's accounts and conversation, and of the club's record. */
  const readsOf = async (phone: string, input: Input) => {
    const commands = await commandsOf(async () => { await say(t, phone, input) })
    const accounts = key(keys.chat.linking.accounts(phone))
    return {
      commands,
      accountsRead: count(commands, 'hgetall', accounts),
      updatesRead: count(commands, 'hexists', accounts),
      // the handoff flag of club-norte's conversation with the phone (its record is per club)
      conversationRead: count(commands, 'hget', conversationKey(phone)),
      clubRead: count(commands, 'get', key(keys.tenants.one('club-norte'))),
    }
  }

  const linked = async (): Promise<string> => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' })
    await say(t, phone, { text: `LINK-${await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token })}` })
    return phone
  }

  it('an unlinked greeting reads the phone once: its accounts, side by side with the take', async () => {
    const phone = newPhone()
    const reads = await readsOf(phone, { text: 'hola' })
    // no club in the session: no club's conversation to read the handoff flag of
    expect(reads).toMatchObject({ accountsRead: 1, updatesRead: 0, conversationRead: 0, clubRead: 0 })
    // sent on the take's connection right behind it (so Redis runs them after the take), before anything else
    // take-4.lua: evalsha, sha, 4, its keys (the mailbox third), phone, owner, lease, then the lane
    const mailbox = key(keys.chat.bot.mailbox(shardOf(phone, t.config.chat.shards), phone))
    const take = reads.commands.findIndex((c) => /^eval(sha)?$/i.test(c.args[0] ?? '') && c.args[5] === mailbox && c.args[10] === 'turn')
    expect(take).toBeGreaterThanOrEqual(0)
    const next = reads.commands.slice(take + 1).filter((c) =>
      c.source === reads.commands[take]!.source).slice(0, 1).map((c) => [c.args[0]?.toLowerCase(), c.args[1]])
    expect(next).toEqual([['hgetall', key(keys.chat.linking.accounts(phone))]])
  })

  it('a link by code reads the accounts once: the new link comes from what the turn wrote, not a second read', async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' })
    const code = await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token })
    const reads = await readsOf(phone, { text: `LINK-${code}` })
    expect(reads).toMatchObject({ accountsRead: 1, updatesRead: 0, conversationRead: 0 })
    expect(reads.clubRead).toBeLessThanOrEqual(1)
    expect((await outbox(t, phone)).map((m) => textOf(m.body)).join('\n')).toContain('Ana')
  })

  it('a re-run of a link turn answers what its first run got: the code, consumed then, ' +
    'is asked for again beside the remembered answer and changes nothing', async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' })
    const code = await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token })
    // what the first run did before it died: consumed the code, linked the phone, remembered the answer
    const record = await t.app.linkCodes.consume(code, phone)
    const account = {
      tenantId: 'club-norte',
      tenantName: record.tenantName,
      customerId: 'cus_ana',
      email: 'ana@example.com',
      name: 'Ana',
      role: 'member' as const,
      token,
      linkedAt: Date.now(),
      expiresAt: Date.now() + 60 * 60_000
    }
    await t.app.linkedAccounts.put(phone, account)
    const store = new RedisChatStore(t.app.redis!, t.config.chat.shards)
    await store.putLinkResult(phone, code, JSON.stringify({ type: 'LINK_OK', tenantId: 'club-norte', accounts: [accountRef(account)] }))
    await say(t, phone, { text: `LINK-${code}` })
    expect((await outbox(t, phone)).map((m) => textOf(m.body)).join('\n')).toMatch(/Tu cuenta quedó vinculada/)
    expect((await t.app.linkedAccounts.list(phone)).map((a) => a.customerId)).toEqual(['cus_ana'])
  })

  it("a linked member's turns each read the accounts with their update settings (one command), the handoff flag and the club once at most", async () => {
    const phone = await linked()
    const inputs: Input[] = [{ text: 'hola' }, { reply: 'menu:browse' }]
    for (const input of inputs) {
      const reads = await readsOf(phone, input)
      expect({ input, ...reads, commands: undefined }).toMatchObject({ accountsRead: 1, updatesRead: 0, conversationRead: 1 })
      expect(reads.clubRead).toBeLessThanOrEqual(1)
    }
    const product = choiceIds((await outbox(t, phone)).at(-1)!.body).find((id) => id.startsWith('product:'))!
    for (const input of [{ reply: product }, { text: '1' }, { reply: 'cart:checkout' }, { reply: 'order:confirm' }] as Input[]) {
      const reads = await readsOf(phone, input)
      expect({ input, ...reads, commands: undefined }).toMatchObject({ accountsRead: 1, updatesRead: 0, conversationRead: 1 })
      expect(reads.clubRead).toBeLessThanOrEqual(1)
    }
    expect((await outbox(t, phone)).map((m) => textOf(m.body)).join('\n')).toMatch(/pedido/i)
  })

  it("a linked member's next turn reads the club's handoff flag beside the take, behind the accounts, not in a round trip of its own", async () => {
    const phone = await linked()
    // the first turn with the club asks for its flag when the gate knows the club; the next ones have it read with the accounts
    await say(t, phone, { text: 'hola' })
    for (const input of [{ reply: 'menu:browse' }, { text: 'menu' }] as Input[]) {
      const reads = await readsOf(phone, input)
      expect({ input, ...reads, commands: undefined }).toMatchObject({ accountsRead: 1, conversationRead: 1 })
      const mailbox = key(keys.chat.bot.mailbox(shardOf(phone, t.config.chat.shards), phone))
      const take = reads.commands.findIndex((c) => /^eval(sha)?$/i.test(c.args[0] ?? '') && c.args[5] === mailbox && c.args[10] === 'turn')
      expect(take).toBeGreaterThanOrEqual(0)
      const next = reads.commands.slice(take + 1).filter((c) => c.source === reads.commands[take]!.source).slice(0, 2).map((c) => c.args.slice(0, 3))
      expect(next).toEqual([['hgetall', key(keys.chat.linking.accounts(phone))], ['hget', conversationKey(phone), 'handoff']])
    }
  })

  it("the updates setting comes with the accounts: a later turn's menu offers updates on again without another read", async () => {
    const phone = await linked()
    await say(t, phone, { reply: 'menu:updates-off' })
    const reads = await readsOf(phone, { text: 'menu' })
    expect(reads).toMatchObject({ accountsRead: 1, updatesRead: 0 })
    const menu = (await outbox(t, phone)).at(-1)!.body
    expect(choiceIds(menu)).toContain('menu:updates-on')
    expect(choiceIds(menu)).not.toContain('menu:updates-off')
  })
})
