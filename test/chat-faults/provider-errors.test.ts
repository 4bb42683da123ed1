import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { signAccessToken } from '../../src/auth/tokens.ts'
import {
  phones, sleep,
  cleanupLogs, failures, figures, JWT_SECRET, load, killInstance, logTail, percentile, post, seedClubs, settled, startInstance, startProvider, startRedis, text,
  type Instance, type Provider, type RedisProcess,
} from './harness.ts'

// The provider's error classes against real processes: two service processes on one redis-server and a loopback
// provider that refuses like Meta does (HTTP 400 with the error's code). 131056 (the pair rate limit: about one
// message every 6 s to one person) holds that phone alone; 131047 (the 24-hour window closed) turns an order
// update into the club's template.

describe('the provider\'s error classes (real processes)', { timeout: 120_000 }, () => {
  let redis: RedisProcess
  let provider: Provider
  let instances: Instance[] = []
  const up = (): Instance[] => instances
  const rows: string[] = []
  const logs = (): string => instances.map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')

  beforeAll(async () => {
    redis = await startRedis()
    provider = await startProvider()
    await seedClubs(redis.url)
    instances = await Promise.all(['errors-a', 'errors-b'].map(async (name) => await startInstance(name, redis.url, provider.url)))
  }, 120_000)

  afterAll(async () => {
    process.stdout.write(`\nthe provider's error classes\n${rows.join('\n')}\n`)
    await Promise.all(instances.map(async (i) => await killInstance(i, 'SIGKILL')))
    await provider?.close()
    await redis?.stop()
    cleanupLogs()
  })

  it('the pair rate limit (131056) on one phone holds that phone only: the others\' replies p99 < 1 s, its own all delivered in order', async () => {
    const [limited] = phones(1) as [string]
    const others = phones(20)
    const latenciesOf = (group: string[], from: number, accepted: Map<string, number>): number[] => provider.received.slice(from)
      .filter((r) => group.includes(r.phone)).map((r) => r.at - (accepted.get(r.key.replace(/:\d+$/, '')) ?? r.at))
    // the same load without the limit first (also the processes' first traffic, so it warms them): what the loaded machine gives
    const control = phones(21)
    const controlAccepted = new Map<string, number>()
    const controlFrom = provider.received.length
    await Promise.all([load(up, control.slice(0, 1), 3, 300, controlAccepted), load(up, control.slice(1), 3, 200, controlAccepted)])
    await settled(control, 3, controlAccepted, provider, 30_000)
    const controlP99 = percentile(latenciesOf(control.slice(1), controlFrom, controlAccepted), 0.99)

    provider.pairRate.add(limited)
    const accepted = new Map<string, number>()
    const started = provider.received.length
    const startedAt = Date.now()
    // the limited phone writes 3 times in a second: its 2nd and 3rd replies meet the limit
    await Promise.all([load(up, [limited], 3, 300, accepted), load(up, others, 3, 200, accepted)])
    await settled(others, 3, accepted, provider, 30_000)
    const latencies = latenciesOf(others, started, accepted)
    const p99 = percentile(latencies, 0.99)
    await settled([limited], 3, accepted, provider, 40_000)
    provider.pairRate.delete(limited)

    const f = await figures(redis.url, [limited, ...others], 3, accepted, provider)
    expect(f.accepted, logs()).toBe(f.sent)
    expect(f.delivered, logs()).toBe(f.accepted)
    expect(f).toMatchObject({ lost: 0, duplicated: 0, outOfOrder: 0 })
    const refused = provider.calls.filter((c) => c.phone === limited && c.code === 131056)
    const takenAt = provider.received.filter((r) => r.phone === limited).map((r) => r.at)
    const gaps = takenAt.slice(1).map((at, i) => at - (takenAt[i] as number))
    rows.push(
      `131056 on 1 phone among 21: others' reply p99 ${p99} ms over ${latencies.length} (${controlP99} ms for the same load first, without the limit); ` +
        `the limited phone's 3 replies ${gaps.map((g) => `${g} ms`).join(', ')} apart, ` +
      `${refused.length} sends refused 131056, all in ${Date.now() - startedAt} ms`
    )
    expect(latencies.length).toBe(60)
    expect(p99).toBeLessThan(1_000)
    // held about 6 s after each refusal, not hammered: a refusal or two per reply that met the limit
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(refused.length).toBeLessThanOrEqual(4)
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(provider.pairRateMs)
    expect(await failures(redis.url)).toEqual({ deadLetters: 0, sendTries: 0 })
  })

  it('a closed window (131047) turns an order update into the club\'s template: both updates reach the member as templates, nothing dead', async () => {
    const [phone] = phones(1) as [string]
    const member = await signAccessToken(JWT_SECRET, { sub: 'cus_bruno', role: 'member', tenants: ['club-norte'], email: 'bruno@example.com', name: 'Bruno' })
    const first = instances[0] as Instance
    const link = await request(`http://127.0.0.1:${first.port}/api/chat/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token: member }),
    })
    const { code } = await link.body.json() as { code: string }
    await post(up, `link-${phone}`, text(phone, `link-${phone}`, `LINK-${code}`), 0, new Map())
    while (!provider.received.some((r) => r.phone === phone && /Tu cuenta quedó vinculada/.test(r.text))) await sleep(100)

    // the member wrote a moment ago, so the service sends the updates as text: the provider says the window is closed
    provider.windowClosed.add(phone)
    const admin = {
      authorization: `Bearer ${await signAccessToken(JWT_SECRET, {
        sub: 'user_admin_norte', role: 'admin', tenants: ['club-norte'], email: 'admin@norte.example', name: 'Admin'
      })}`,
      'tenant-id': 'club-norte'
    }
    const products = await request(`http://127.0.0.1:${first.port}/store/products`, { headers: admin })
    const { products: list } = await products.body.json() as { products: Array<{ variants: Array<{ id: string }> }> }
    const before = provider.received.length
    const res = await request(`http://127.0.0.1:${first.port}/api/orders/create-and-process`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        customer: { id: 'cus_bruno', email: 'bruno@example.com', firstName: 'Bruno', lastName: 'Díaz' },
        items: [{ variantId: list[0]?.variants[0]?.id, quantity: 1 }],
        shippingMethod: 'delivery',
        paymentMethod: 'cash',
      }),
    })
    const body = await res.body.text()
    expect(res.statusCode, body).toBe(200)
    const { order } = JSON.parse(body) as { order: { displayId: number | string } }
    const got = () => provider.received.slice(before).filter((r) => r.phone === phone)
    for (const deadline = Date.now() + 30_000; got().length < 2 && Date.now() < deadline;) await sleep(100)
    provider.windowClosed.delete(phone)

    const refused = provider.calls.filter((c) => c.phone === phone && c.code === 131047)
    rows.push(`131047 on an order's 2 updates: ${refused.length} text sends refused, then ${got().map((r) => `${r.type} ${r.key}`).join(', ')}`)
    expect(got().map((r) => r.type), logs()).toEqual(['template', 'template'])
    expect(got().map((r) =>
      r.key)).toEqual([expect.stringMatching(/^system:order_shipped:.*:template$/), expect.stringMatching(/^system:order_completed:.*:template$/)])
    // the templates carry the order's number
    expect(got().map((r) => r.text)).toEqual([String(order.displayId), String(order.displayId)])
    expect(refused.map((c) => c.key)).toEqual([expect.stringMatching(/^system:order_shipped:/), expect.stringMatching(/^system:order_completed:/)])
    expect((await failures(redis.url)).deadLetters).toBe(0)
  })
})
