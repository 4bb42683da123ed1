import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { startRedisCluster, toNode } from '../scripts/lib/redis-cluster.ts'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { loadConfig } from '../src/config.ts'
import { startCommerce } from './commerce.ts'
import {
  closedLoop, drained, fmt, phoneOf, printTargets, scaled, scrape, SECRETS, startProvider, startService, TURNS_APPLIED, OUTBOX_PHONES,
  waitFor, webhook, type Child, type Provider, type Target,
} from './lib.ts'

// Figures of scale, each on a service and Redis of its own: the process RSS after 10,000 and 50,000 phones; the
// provider's pace (a burst of 2,000 replies at a limit of 80 a second); and on a local 3-master Redis Cluster,
// keys per master for 10,000 phones and the share of turns each of two service instances runs.

const RSS = 'process_resident_memory_bytes'

/** Greets the service from `count` phones new to it, numbered from `from`; waits until every reply is out. */
async function greet (service: Child, from: number, count: number): Promise<void> {
  const base = (await scrape(service, [TURNS_APPLIED]))[TURNS_APPLIED] ?? 0
  await closedLoop(service.pool, count, 64, (i) => webhook(phoneOf(from, i), { text: 'hola' }))
  await drained(service, base + count)
}

async function rss (provider: Provider, commerceUrl: string): Promise<{ first: number, second: number, phones: [number, number] }> {
  const redis = await startRedisServer()
  const service = await startService({ REDIS_URL: redis.url, COMMERCE_URL: commerceUrl, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000' })
  try {
    const phones: [number, number] = [scaled(10_000, 1_000), scaled(50_000, 5_000)]
    await greet(service, 10_000_000, phones[0])
    provider.reset()
    const first = (await scrape(service, [RSS]))[RSS] ?? 0
    await greet(service, 10_000_000 + phones[0], phones[1] - phones[0])
    provider.reset()
    const second = (await scrape(service, [RSS]))[RSS] ?? 0
    return { first, second, phones }
  } finally {
    await service.stop()
    await redis.stop()
  }
}

/** Whether this build reads CHAT_SEND_RATE (the pacing work lands separately): some chat setting follows it. */
function pacingConfigured (): boolean {
  const chat = (rate: string): Record<string, unknown> => loadConfig({ ...SECRETS, REDIS_URL: 'redis://127.0.0.1:6379', CHAT_SEND_RATE: rate }).chat
  const [at80, at81] = [chat('80'), chat('81')]
  return Object.keys(at80).some((name) => at80[name] === 80 && at81[name] === 81)
}

interface Pacing { configured: boolean, replies: number, received: number, rate: number, deadLetters: number }

async function pacing (provider: Provider, commerceUrl: string): Promise<Pacing> {
  const redis = await startRedisServer()
  const service = await startService({ REDIS_URL: redis.url, COMMERCE_URL: commerceUrl, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '80' })
  try {
    // how many replies an unlinked greeting gets, then enough greetings for a burst of 2,000 replies
    provider.reset()
    await greet(service, 20_000_000, 1)
    const perTurn = provider.sent.length
    if (perTurn === 0) throw new Error('bench: a greeting was drained before its reply reached the provider')
    const turns = Math.ceil(scaled(2_000, 200) / perTurn)
    provider.reset()
    await closedLoop(service.pool, turns, 64, (i) => webhook(phoneOf(20_000_001, i), { text: 'hola' }))
    const replies = turns * perTurn
    await waitFor(
      `${replies} replies`, async () => provider.sent.length >= replies || (await scrape(service, [OUTBOX_PHONES]))[OUTBOX_PHONES] === 0, 300_000, 200
    )
    const times = provider.sent.map((s) => s.at).sort((a, b) => a - b)
    const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000
    const dead = await scrape(service, ['club_chat_dead_letters_total'], true)
    return {
      configured: pacingConfigured(),
      replies,
      received: provider.sent.length,
      rate: (times.length - 1) / span,
      deadLetters: dead.club_chat_dead_letters_total ?? 0
    }
  } finally {
    provider.reset()
    await service.stop()
    await redis.stop()
  }
}

interface Spread { keys: number[], turns: number[] }

async function cluster (provider: Provider, commerceUrl: string): Promise<Spread> {
  const servers = await startRedisCluster()
  const services: Child[] = []
  try {
    const env = { REDIS_CLUSTER_NODES: servers.nodes.join(','), COMMERCE_URL: commerceUrl, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000' }
    services.push(await startService(env), await startService(env))
    const each = Math.ceil(scaled(10_000, 1_000) / services.length)
    // a load balancer's round robin: each instance takes every other webhook call
    await Promise.all(services.map(async (service, s) => {
      await closedLoop(service.pool, each, 32, (i) => webhook(phoneOf(30_000_000, services.length * i + s), { text: 'hola' }))
    }))
    const turns = async (): Promise<number[]> => await Promise.all(services.map(async (s) => (await scrape(s, [TURNS_APPLIED]))[TURNS_APPLIED] ?? 0))
    await waitFor('the cluster\'s turns', async () => (await turns()).reduce((a, b) => a + b, 0) >= each * services.length, 300_000, 100)
    await Promise.all(services.map(async (s) => { await drained(s, 0) }))
    provider.reset()
    const keys = await Promise.all(servers.nodes.map(async (hostPort) => {
      const { host, port } = toNode(hostPort)
      const node = new Redis(port, host)
      try {
        return await node.dbsize()
      } finally {
        node.disconnect()
      }
    }))
    return { keys, turns: await turns() }
  } finally {
    for (const s of services) await s.stop()
    await servers.stop()
  }
}

export async function run (): Promise<Target[]> {
  const provider = await startProvider()
  const commerceRedis = await startRedisServer()
  const commerce = await startCommerce(commerceRedis.url)
  try {
    const memory = await rss(provider, commerce.url)
    const paced = await pacing(provider, commerce.url)
    const spread = await cluster(provider, commerce.url)
    const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`
    const growth = memory.second / memory.first - 1
    const evenKeys = spread.keys.reduce((a, b) => a + b, 0) / spread.keys.length
    const keysOff = Math.max(...spread.keys.map((k) => Math.abs(k / evenKeys - 1)))
    const allTurns = spread.turns.reduce((a, b) => a + b, 0)
    const shares = spread.turns.map((t) => t / allTurns)
    process.stdout.write([
      `  process RSS of the service:     ${mb(
        memory.first
      )} after ${memory.phones[0]} phones, ${mb(memory.second)} after ${memory.phones[1]} (${(100 * growth).toFixed(1)}%)`,
      `  provider pacing:                ${paced.configured
        ? 'limit 80/s (CHAT_SEND_RATE)'
        : 'pacing: not configured (this build has no CHAT_SEND_RATE: the unpaced rate)'}; ${paced.received} of ${paced.replies} replies sent at ${fmt(
          paced.rate
        )}/s, ${paced.deadLetters} dead letters`,
      `  Redis Cluster, 3 masters:       keys per master ${spread.keys.join(' / ')} (at most ${(100 * keysOff).toFixed(1)}% off an even share)`,
      `  two instances on the cluster:   turns ${spread.turns.join(' / ')} (${shares.map((s) => `${(100 * s).toFixed(1)}%`).join(' / ')})`,
      '',
    ].join('\n'))
    return [
      {
        figure: `RSS ${memory.phones[0]} -> ${memory.phones[1]} phones`,
        value: `${(100 * growth).toFixed(1)}%`,
        target: 'flat within 10%',
        met: Math.abs(growth) <= 0.1
      },
      {
        figure: 'provider pace at a limit of 80/s',
        value: paced.configured ? `${fmt(paced.rate)}/s` : `${fmt(paced.rate)}/s (not configured)`,
        target: '80/s +-10%',
        met: paced.configured && Math.abs(paced.rate / 80 - 1) <= 0.1
      },
      {
        figure: 'replies dropped in the paced burst',
        value: String(paced.replies - paced.received + paced.deadLetters),
        target: '0',
        met: paced.received >= paced.replies && paced.deadLetters === 0
      },
      { figure: 'cluster keys per master vs even', value: `${(100 * keysOff).toFixed(1)}% off`, target: 'within 15%', met: keysOff <= 0.15 },
      {
        figure: 'turns per instance on the cluster',
        value: shares.map((s) => `${(100 * s).toFixed(0)}%`).join(' / '),
        target: 'each 40-60%',
        met: shares.every((s) => s >= 0.4 && s <= 0.6)
      },
    ]
  } finally {
    await commerce.close()
    await commerceRedis.stop()
    await provider.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) printTargets(await run())
