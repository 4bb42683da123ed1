import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import {
  phones, sleep,
  cleanupLogs, load, figures, killInstance, logTail, seedClubs, settled, startInstance, startProvider, startRedis,
  type Figures, type Instance, type Provider, type RedisProcess,
} from './harness.ts'
import { startProcess } from '../foundation/process.ts'
import { WakeChannel } from '../../src/chat/wake.ts'
import { createRedis } from '../../src/plugins/redis.ts'

// The documented deployment of a web instance and chat workers, as real processes on one redis-server: the web
// instance (CHAT_LANES=off) takes every webhook and runs no turn and no send; the worker (CHAT_LANES=on) answers
// each message once and in order, and a worker killed -9 in the middle of a burst loses nothing once it is back.

const METRICS_TOKEN = 'split-suite-metrics-token-0123456789'

/** Turns an instance applied (its /metrics). */
async function turnsApplied (instance: Instance): Promise<number> {
  const res = await request(`http://127.0.0.1:${instance.port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const body = await res.body.text()
  expect(res.statusCode).toBe(200)
  return [...body.matchAll(/^club_chat_turns_applied_total(?:\{[^}]*\})? (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
}

describe('a web instance and a chat worker (real processes)', { timeout: 120_000 }, () => {
  let redis: RedisProcess
  let provider: Provider
  let web: Instance
  let worker: Instance
  // webhooks go to the web instance only
  const toWeb = (): Instance[] => [web]
  const startWorker = async (): Promise<Instance> => await startInstance('worker', redis.url, provider.url, { METRICS_TOKEN })

  beforeAll(async () => {
    redis = await startRedis()
    provider = await startProvider()
    await seedClubs(redis.url)
    ;[web, worker] = await Promise.all([
      startInstance('web', redis.url, provider.url, { CHAT_LANES: 'off', METRICS_TOKEN }),
      startWorker(),
    ])
  }, 120_000)

  afterAll(async () => {
    await Promise.all([web, worker].filter(Boolean).map(async (i) => await killInstance(i, 'SIGKILL')))
    await provider?.close()
    await redis?.stop()
    cleanupLogs()
  })

  async function check (group: string[], perPhone: number, accepted: Map<string, number>): Promise<Figures> {
    await settled(group, perPhone, accepted, provider, 60_000)
    const f = await figures(redis.url, group, perPhone, accepted, provider)
    const logs = [web, worker].map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
    expect(f.accepted, logs).toBe(f.sent)
    expect(f, logs).toMatchObject({ applied: f.accepted, delivered: f.accepted, lost: 0, duplicated: 0, outOfOrder: 0 })
    return f
  }

  it('messages posted to the web instance are answered once and in order by the worker, none by the web instance', async () => {
    const group = phones(10)
    const accepted = new Map<string, number>()
    const before = await turnsApplied(worker)
    await load(toWeb, group, 6, 20, accepted)
    await check(group, 6, accepted)
    expect(await turnsApplied(worker) - before).toBe(60)
    expect(await turnsApplied(web)).toBe(0)
  })

  it('the worker killed -9 mid-burst and restarted: the web instance kept accepting, nothing lost or applied twice', async () => {
    const group = phones(20)
    const accepted = new Map<string, number>()
    // slow sends, so that the worker surely holds phones (their leases) when it dies
    provider.delayMs = 200
    const state = { done: false }
    const running = load(toWeb, group, 10, 250, accepted).finally(() => { state.done = true })
    await sleep(700)
    await killInstance(worker, 'SIGKILL')
    const acceptedAtKill = accepted.size
    // the web instance takes the burst on while no worker runs
    while (accepted.size < acceptedAtKill + 20 && !state.done) await sleep(50)
    expect(accepted.size).toBeGreaterThanOrEqual(acceptedAtKill + 20)
    worker = await startWorker()
    await running
    provider.delayMs = 0
    await check(group, 10, accepted)
    expect(await turnsApplied(web)).toBe(0)
  })
})

describe('a web instance without Redis', () => {
  it('is refused at start with one line naming CHAT_LANES (the in-memory stores are its own: nobody could take its turns)', async () => {
    const { child, output } = startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { CHAT_LANES: 'off', PORT: '0' })
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(output().trim()).toBe('Invalid configuration: CHAT_LANES=off needs REDIS_URL (or REDIS_CLUSTER_NODES) shared with instances running CHAT_LANES=on')
  })
})

// A web instance's only way to hand work on is the wake channel: an announcement that cannot be published (the
// web instance's connection to Redis lost between the webhook's store and the announcement) is kept and published
// once the connection is back. (When Redis itself restarts, the workers sweep every shard on reconnecting, which
// finds the mail whether or not the announcement arrives.)
describe('the wake channel with the connection away', { timeout: 60_000 }, () => {
  it(
    'publishes a phone announced while the web instance\'s connection was closed once it is open again; ' +
      'a listener whose subscription dropped is told when it is back',
    async () => {
      const redis = await startRedis()
      const web = createRedis(redis.url, 'wake-test:')
      const worker = createRedis(redis.url, 'wake-test:')
      const sender = new WakeChannel(web, 'wake-test:', 4, 'web')
      const listener = new WakeChannel(worker, 'wake-test:', 4, 'worker')
      try {
        await Promise.all([web.connect(), worker.connect()])
        const woken: string[] = []
        await listener.listen((lane, phones) => { woken.push(...phones.map((p) => `${lane}:${p}`)) })
        const failures: Error[] = []
        web.disconnect()
        sender.announce('turn', ['5491100000001'], (err) => { failures.push(err) })
        while (failures.length === 0) await sleep(20)
        expect(woken).toEqual([])
        await web.connect()
        const deadline = Date.now() + 10_000
        while (woken.length === 0 && Date.now() < deadline) await sleep(20)
        expect(woken).toEqual(['turn:5491100000001'])

        // the listener's own subscription dropped: told once it is back (its instance sweeps for what it missed)
        const resubscribed = { times: 0 }
        const other = new WakeChannel(worker, 'wake-test:', 4, 'other')
        await other.listen(() => {}, () => { resubscribed.times++ })
        await web.client('KILL', 'TYPE', 'pubsub')
        while (resubscribed.times === 0 && Date.now() < deadline + 10_000) await sleep(20)
        expect(resubscribed.times).toBeGreaterThan(0)
        // both subscriptions back on every channel before they are closed (ioredis' own re-subscribe, cut short,
        // would reject with nobody listening)
        const counts = async (): Promise<number[]> => {
          const channels = await web.call('PUBSUB', 'SHARDCHANNELS') as string[]
          if (channels.length < 4) return [0]
          return ((await web.call('PUBSUB', 'SHARDNUMSUB', ...channels)) as unknown[]).filter((_, i) => i % 2 === 1).map(Number)
        }
        while ((await counts()).some((n) => n < 2) && Date.now() < deadline + 20_000) await sleep(20)
        expect(await counts()).toEqual([2, 2, 2, 2])
        await other.close()
      } finally {
        await sender.close().catch(() => {})
        await listener.close().catch(() => {})
        web.disconnect()
        worker.disconnect()
        await redis.stop()
      }
    }
  )
})
