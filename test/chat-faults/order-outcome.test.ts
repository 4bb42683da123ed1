import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { signAccessToken } from '../../src/auth/tokens.ts'
import { loadConfig } from '../../src/config.ts'
import { keys } from '../../src/stores/keys.ts'
import {
  cleanupLogs, JWT_SECRET, killInstance, logTail, post, PREFIX, SECRET, startInstance, startProvider, startRedis, startSeededCommerce, text,
  type Instance, type Provider, type RedisProcess,
} from './harness.ts'

// Issue 25, faults: the commerce backend killed right after completing a cart (its own process, bench/
// commerce-server.ts, behind a loopback that kills it once the completion's answer arrives and drops that answer).
// The member is told the truth (the order may exist), staff get no notice for an order not known, the backend comes
// back, the read-back (ORDERS_SETTLE_AFTER_MS) records the order and tells staff once, and the member orders again
// with a fresh cart. One service process on a redis-server; the messaging provider a loopback stand-in.

const CLUB = 'club-norte'

/** Forwards to `target()`; while `armed`, a cart's completion reaches the backend, which is then killed before its answer is passed on. */
interface KillingProxy { url: string, armed: boolean, killed: number, close: () => Promise<void> }

async function startKillingProxy (target: () => string, kill: () => Promise<void>): Promise<KillingProxy> {
  const proxy: KillingProxy = {
    url: '', armed: false, killed: 0, close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) }
  }
  const server: Server = createServer((req, res) => {
    const completing = proxy.armed && req.method === 'POST' && /^\/store\/carts\/[^/]+\/complete/.test(req.url ?? '')
    if (completing) proxy.armed = false
    const upstream = forward(`${target()}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      if (!completing) {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        return
      }
      answer.resume()
      answer.once('end', () => {
        kill().then(() => { proxy.killed++; res.socket?.destroy() }).catch(() => { res.socket?.destroy() })
      })
    })
    upstream.on('error', () => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' }).end(
          '{"type":"unknown_error","message":"down"}'
        )
      }
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return proxy
}

describe('the commerce backend killed right after completing a cart (real processes)', () => {
  let redis: RedisProcess
  let commerceRedis: RedisProcess
  let provider: Provider
  let commerce: Instance & { url: string }
  let proxy: KillingProxy
  let service: Instance
  let client: Redis
  const base = (): string => `http://127.0.0.1:${service.port}`
  let n = 0

  beforeAll(async () => {
    ;[redis, commerceRedis, provider] = await Promise.all([startRedis(), startRedis(), startProvider()])
    commerce = await startSeededCommerce(commerceRedis.url)
    proxy = await startKillingProxy(() => commerce.url, async () => { await killInstance(commerce, 'SIGKILL') })
    // the demo clubs in the service's Redis, their backend the proxy
    const secrets = { JWT_SECRET, CRON_API_SECRET: 'fault-suite-cron-secret-0123456789', CHAT_WEBHOOK_SECRET: SECRET }
    const seeder = await buildApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SEED: 'demo', REDIS_URL: redis.url, REDIS_KEY_PREFIX: PREFIX, COMMERCE_URL: proxy.url, ...secrets })
    )
    await seeder.ready()
    await seeder.close()
    service = await startInstance('a', redis.url, provider.url, { COMMERCE_URL: proxy.url, ORDERS_SETTLE_AFTER_MS: '1000' })
    client = new Redis(redis.url, { keyPrefix: PREFIX })
  }, 90_000)

  afterAll(async () => {
    client?.disconnect()
    await Promise.all([service, commerce].filter(Boolean).map(async (i) => await killInstance(i, 'SIGKILL')))
    await proxy?.close()
    await provider?.close()
    await Promise.all([redis?.stop(), commerceRedis?.stop()])
    cleanupLogs()
  })

  const json = async (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number, body: any }> => {
    const res = await request(`${base()}${path}`, {
      method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: res.statusCode, body: await res.body.json() }
  }
  const replies = (phone: string): string[] => provider.received.filter((r) => r.phone === phone).map((r) => r.text)
  /** Posts one message like the provider and waits for its replies (the first, then 700 ms without another). */
  const say = async (phone: string, input: string | { reply: string }): Promise<string> => {
    const before = replies(phone).length
    const id = `oo-${phone}-${n++}`
    const raw = typeof input === 'string'
      ? text(phone, id, input)
      : JSON.stringify({
        message: { id, from: phone, type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: input.reply, title: input.reply } } },
        conversation: { phone_number: phone }
      })
    await post(() => [service], id, raw, 0, new Map())
    const deadline = Date.now() + 30_000
    let seen = before
    let quietSince = Date.now()
    while (Date.now() < deadline) {
      const now = replies(phone).length
      if (now !== seen) [seen, quietSince] = [now, Date.now()]
      if (seen > before && Date.now() - quietSince > 700) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return replies(phone).slice(before).join('\n')
  }
  const admin = async (): Promise<Record<string, string>> => ({
    authorization: `Bearer ${await signAccessToken(JWT_SECRET, {
      sub: 'user_admin_norte', role: 'admin', tenants: [CLUB], email: 'admin@club-norte.test', name: 'Admin Norte'
    })}`,
    'tenant-id': CLUB,
  })
  /** The staff's "new order" notices per order. */
  const staffNotices = async (): Promise<Map<string, number>> => {
    const list = (await json('GET', '/api/notifications?domain=orders&limit=100', await admin())).body.notifications as Array<{
      event: string, resourceId?: string
    }>
    const counts = new Map<string, number>()
    for (const x of list.filter((l) => l.event === 'order.placed')) counts.set(x.resourceId ?? '', (counts.get(x.resourceId ?? '') ?? 0) + 1)
    return counts
  }

  it('the member is told the order may exist; the read-back records it once the backend is back; staff are told once; the member orders again', async () => {
    const login = await json('POST', '/auth/customer/emailpass', { 'tenant-id': CLUB }, { email: 'ana@example.com', password: 'demo-password' })
    expect(login.status, logTail(service)).toBe(200)
    const token = login.body.token as string
    const sub = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).sub as string
    const link = await json('POST', '/api/chat/link', {}, { customerId: sub, email: 'ana@example.com', name: 'Ana', tenantId: CLUB, token })
    expect(link.status).toBe(201)
    const phone = `54911${String(Date.now()).slice(-8)}`
    await say(phone, `LINK-${link.body.code as string}`)
    expect(await say(phone, 'quiero 1 aceite')).toMatch(/Agregado: 1 ×/)
    await say(phone, { reply: 'cart:checkout' })
    const noticesBefore = await staffNotices()

    proxy.armed = true
    const told = await say(phone, { reply: 'order:confirm' })
    expect(proxy.killed).toBe(1)
    expect(told, logTail(service)).toMatch(/Puede que tu pedido haya entrado/)
    expect(told).not.toMatch(/Pedido #|No pudimos/)
    expect(await client.hlen(keys.orders.unsettled(CLUB))).toBe(1)
    expect(await staffNotices()).toEqual(noticesBefore)

    // the backend back (its data kept in its Redis): the read-back finds the order, records it and tells staff once
    commerce = await startSeededCommerce(commerceRedis.url)
    const deadline = Date.now() + 30_000
    while (await client.hlen(keys.orders.unsettled(CLUB)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await client.hlen(keys.orders.unsettled(CLUB)), logTail(service)).toBe(0)
    const placed = [...(await staffNotices()).entries()].filter(([id]) => !noticesBefore.has(id))
    expect(placed).toEqual([[expect.stringMatching(/^order_/), 1]])
    // and only once: two more passes of the read-back
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect((await staffNotices()).get(placed[0]![0])).toBe(1)
    // the member's own notice of it
    const mine = (await json('GET', '/api/notifications?domain=orders&limit=100', {
      authorization: `Bearer ${token}`, 'tenant-id': CLUB
    })).body.notifications as Array<{ event: string, resourceId?: string }>
    expect(mine.filter((x) => x.resourceId === placed[0]![0]).map((x) => x.event)).toEqual(['order.placed'])

    // the member goes on with a fresh cart, not the completed one
    expect(await say(phone, 'quiero 1 aceite')).toMatch(/Agregado: 1 ×/)
    await say(phone, { reply: 'cart:checkout' })
    expect(await say(phone, { reply: 'order:confirm' })).toMatch(/Pedido #\d+ realizado/)
    const after = await staffNotices()
    expect([...after.entries()].filter(([id]) => !noticesBefore.has(id)).map(([, count]) => count)).toEqual([1, 1])
  }, 120_000)
})
