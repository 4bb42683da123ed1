import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { encodeMail } from '../../src/chat/mail.ts'
import { chatMetrics } from '../../src/chat/metrics.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { TurnWorker, type Turns } from '../../src/chat/worker.ts'
import { keys } from '../../src/stores/keys.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, messageBody, newPhone, postWebhook, say, startFakeProvider, textOf, type FakeProvider } from './support.ts'

// What the pipeline gives up is kept with its reason and counted: a reply the provider refuses, a turn that
// keeps failing. An admin of the conversation's club lists and re-sends them; nobody else sees them.

describe('chat dead letters', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const counter = async (lane: string) => {
    const metric = await t.app.metrics.getSingleMetric('club_chat_dead_letters_total')?.get()
    return metric?.values.find((v) => v.labels.lane === lane)?.value ?? 0
  }

  async function linked (phone: string): Promise<void> {
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
  }

  it('a refused reply is a dead letter of its club: listed to its admin only, re-sent once on request', async () => {
    const phone = newPhone()
    await linked(phone)
    const before = await counter('send')
    provider.plan.push({ status: 400 })
    await say(t, phone, { reply: 'menu:cart' })
    expect(await counter('send')).toBe(before + 1)

    const list = await t.app.inject({ url: '/api/chat/dead-letters', headers: await t.auth('admin', 'club-norte') })
    expect(list.statusCode).toBe(200)
    const letter = list.json().deadLetters.find((l: { phone: string }) => l.phone === phone)
    expect(letter).toMatchObject({ lane: 'send', reason: expect.stringContaining('400'), tries: 1, content: { to: phone, messaging_product: 'whatsapp' } })

    const other = await t.app.inject({ url: '/api/chat/dead-letters', headers: await t.auth('admin', 'club-sur') })
    expect(other.json().deadLetters.map((l: { id: string }) => l.id)).not.toContain(letter.id)
    expect((await t.app.inject({ url: '/api/chat/dead-letters', headers: await t.auth('member', 'club-norte') })).statusCode).toBe(403)
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/chat/dead-letters/${letter.id}/retry`, headers: await t.auth('admin', 'club-sur') })).statusCode
    ).toBe(404)

    const sentBefore = provider.to(phone).length
    const retry = await t.app.inject({ method: 'POST', url: `/api/chat/dead-letters/${letter.id}/retry`, headers: await t.auth('admin', 'club-norte') })
    expect(retry.statusCode).toBe(200)
    expect(retry.json().deadLetter.id).toBe(letter.id)
    await t.app.chatWorker.idle(phone)
    expect(provider.to(phone).slice(sentBefore).map(textOf)).toEqual([textOf(letter.content)])
    const again = await t.app.inject({ method: 'POST', url: `/api/chat/dead-letters/${letter.id}/retry`, headers: await t.auth('admin', 'club-norte') })
    expect(again.statusCode).toBe(404)
    expect(again.json().error.code).toBe('NOT_FOUND')
    expect((await t.app.inject({ method: 'POST', url: '/api/chat/dead-letters/nope/retry', headers: await t.auth('admin', 'club-norte') })).statusCode).toBe(
      400
    )
  })

  it('an unreadable mailbox entry is set aside at once as a dead letter with the reason; the phone goes on', async () => {
    const phone = newPhone()
    await linked(phone)
    const before = await counter('turn')
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const poison = JSON.stringify({ id: `poison-${phone}`, phone, receivedAt: Date.now(), input: { kind: 'text', text: 42 } })
    await store.accept([{ phone, id: `poison-${phone}`, body: poison }])
    const sentBefore = provider.to(phone).length
    expect((await postWebhook(t.app, messageBody(phone, { text: 'hola' }))).statusCode).toBe(200)
    await t.app.chatWorker.idle(phone)
    expect(await counter('turn')).toBe(before + 1)
    // the message behind it was answered once the poison was set aside
    expect(provider.to(phone).length).toBeGreaterThan(sentBefore)
    const letters = (await t.app.inject({ url: '/api/chat/dead-letters', headers: await t.auth('admin', 'club-norte') })).json().deadLetters
    expect(letters.find((l: { phone: string }) =>
      l.phone === phone)).toMatchObject({ lane: 'turn', tries: 1, content: { id: `poison-${phone}` }, reason: 'the mailbox entry is not a readable message' })
  })

  it('a turn that keeps failing is retried with a backoff, then kept as a dead letter with the reason; the phone goes on', async () => {
    const phone = newPhone()
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    // fault injection: a conversation that throws on one message and answers the others
    const runs: Record<string, number> = {}
    const turns: Turns = {
      run: async (message, session) => {
        runs[message.id] = (runs[message.id] ?? 0) + 1
        if (message.id === `poison-${phone}`) throw new Error("the club's data is broken")
        return { doc: '{}', applied: [message.id, ...session.applied], replies: [], before: 'A', after: 'A' }
      },
    }
    const metrics = chatMetrics(new Registry(), async () => 0)
    const none = () => {}
    const options = { owner: 'test-worker', leaseMs: 2_000, concurrency: 1, shards: t.app.config.chat.shards, maxTries: 5, log: t.app.log, metrics }
    const worker = new TurnWorker(store, turns, {
      turnRecord: () =>
        undefined,
      committing: none
    }, { leaseOwner: () => undefined, handOver: none }, { ...options, crashPoint: none, handedBack: none })
    const mail = (id: string) => ({ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) })
    await store.accept([mail(`poison-${phone}`), mail(`next-${phone}`)])
    worker.runner.start()
    worker.runner.offer([phone])
    // 5 tries, 0.5, 1, 2 and 4 s apart
    const deadline = Date.now() + 25_000
    while (await store.pending(phone) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    await worker.runner.stop(1_000)
    expect(runs).toEqual({ [`poison-${phone}`]: 5, [`next-${phone}`]: 1 })
    expect(await metrics.retried.get()).toMatchObject({ values: [{ value: 4 }] })
    // a phone that chose no club: its letter is listed in the shard's index of letters of no club
    const ids = await t.app.redis!.zrange(keys.chat.bot.deadIndex(shardOf(phone, t.app.config.chat.shards)), 0, -1)
    const letter = (await Promise.all(ids.map(async (id) => await store.deadLetter(id)))).find((l) => l?.phone === phone)
    expect(letter).toMatchObject({ lane: 'turn', tries: 5, reason: "the club's data is broken" })
  }, 30_000)

  /** A worker on `phone`'s turns that answers every message; its take opens an attempt after the others'. */
  function steadyWorker (store: RedisChatStore, owner: string, runs: string[]): TurnWorker {
    const turns: Turns = {
      run: async (message, session) => {
        runs.push(message.id); return {
          doc: '{}', applied: [message.id, ...session.applied], replies: [], before: 'A', after: 'A'
        }
      }
    }
    const none = () => {}
    const options = {
      owner, leaseMs: 2_000, concurrency: 1, shards: t.app.config.chat.shards, maxTries: 5, log: t.app.log, metrics: chatMetrics(new Registry(), async () => 0)
    }
    return new TurnWorker(store, turns, {
      turnRecord: () =>
        undefined,
      committing: none
    }, { leaseOwner: () => undefined, handOver: none }, { ...options, crashPoint: none, handedBack: none })
  }

  /** A message taken by each of `owners` in turn, each lease running out with its attempt open (none ended it). */
  async function takenBy (store: RedisChatStore, phone: string, owners: string[]): Promise<string> {
    const id = `m-${phone}`
    await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
    for (const owner of owners) {
      expect((await store.takeTurn(phone, owner, 20)).kind).toBe('ok')
      await new Promise((resolve) => setTimeout(resolve, 40))
    }
    return id
  }

  it('a message whose takers lost their leases while their instances live (a slow Redis) is never buried: it runs and commits', async () => {
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const phone = newPhone()
    const slow = ['slow-1', 'slow-2', 'slow-3', 'slow-4', 'slow-5', 'slow-6', 'slow-7']
    for (const owner of [...slow, 'steady']) await store.heartbeat(owner, 60_000)
    const id = await takenBy(store, phone, slow)
    const runs: string[] = []
    const worker = steadyWorker(store, 'steady', runs)
    worker.runner.start()
    worker.runner.offer([phone])
    const deadline = Date.now() + 10_000
    while (await store.pending(phone) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    await worker.runner.stop(1_000)
    expect(runs).toEqual([id])
    const ids = await t.app.redis!.zrange(keys.chat.bot.deadIndex(shardOf(phone, t.app.config.chat.shards)), 0, -1)
    expect((await Promise.all(ids.map(async (i) => await store.deadLetter(i)))).filter((l) => l?.phone === phone)).toEqual([])
  })

  it('a message whose workers died on it more than 5 times is buried unrun: each attempt of an instance gone counts', async () => {
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const phone = newPhone()
    // six instances that never beat (gone): each took the message and died on it
    const id = await takenBy(store, phone, ['dead-1', 'dead-2', 'dead-3', 'dead-4', 'dead-5', 'dead-6'])
    await store.heartbeat('steady-2', 60_000)
    const runs: string[] = []
    const worker = steadyWorker(store, 'steady-2', runs)
    worker.runner.start()
    worker.runner.offer([phone])
    const deadline = Date.now() + 10_000
    while (await store.pending(phone) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    await worker.runner.stop(1_000)
    expect(runs).toEqual([])
    const ids = await t.app.redis!.zrange(keys.chat.bot.deadIndex(shardOf(phone, t.app.config.chat.shards)), 0, -1)
    const letters = (await Promise.all(ids.map(async (i) => await store.deadLetter(i)))).filter((l) => l?.phone === phone)
    expect(letters).toMatchObject([{ lane: 'turn', tries: 7, reason: 'the turn never finished' }])
    expect(JSON.parse(letters[0]?.payload ?? '{}')).toMatchObject({ id })
  })
})
