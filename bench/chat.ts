import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { Pool } from 'undici'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { buildApp } from '../src/app.ts'
import { shardOf } from '../src/chat/shards.ts'
import { signWebhookBody } from '../src/chat/signature.ts'
import { loadConfig } from '../src/config.ts'
import { keys } from '../src/stores/keys.ts'

// The chat bot's figures (not a timed test): webhook acks per second and chat turns end to end per second,
// each also as a ratio to a bare Fastify route measured in the same run; the ack latency p99 at 1,000
// messages a second; Redis bytes per idle session. Runs on REDIS_URL, or starts its own redis-server.

const SECRET = 'bench-webhook-secret-0123456789abcdef'

async function startRedis (): Promise<{ url: string, stop: () => Promise<void> }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} }
  return await startRedisServer()
}

/** A loopback stand-in for the provider's send API that accepts everything. */
async function startProvider (): Promise<{ url: string, close: () => Promise<void> }> {
  const server = createHttpServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"messages":[{"id":"x"}]}'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: async () => { await new Promise<void>((resolve) => server.close(() => resolve())) } }
}

function signedMessage (phone: string, text: string): { body: string, headers: Record<string, string> } {
  const body = JSON.stringify({ message: { id: `wamid.${randomUUID()}`, from: phone, type: 'text', text: { body: text } }, conversation: { phone_number: phone } })
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-event': 'chat.message.received',
      'x-webhook-signature': signWebhookBody(SECRET, body),
      'x-idempotency-key': randomUUID(),
    },
  }
}

/** Sends `count` requests with `concurrency` in flight; requests per second. */
async function closedLoop (pool: Pool, count: number, concurrency: number, make: (i: number) => { path: string, body: string, headers: Record<string, string> }): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const r = make(next++)
      const res = await pool.request({ method: 'POST', path: r.path, body: r.body, headers: r.headers })
      await res.body.dump()
      if (res.statusCode !== 200) throw new Error(`${r.path} answered ${res.statusCode}`)
    }
  }))
  return count / ((performance.now() - started) / 1000)
}

/** Open loop: one request every 1000/rate ms for `seconds`, whatever the answers; latencies in ms. */
async function openLoop (pool: Pool, rate: number, seconds: number, make: () => { path: string, body: string, headers: Record<string, string> }): Promise<number[]> {
  const latencies: number[] = []
  const pending: Array<Promise<void>> = []
  const start = performance.now()
  const total = rate * seconds
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const r = make()
    const sent = performance.now()
    pending.push(pool.request({ method: 'POST', path: r.path, body: r.body, headers: r.headers }).then(async (res) => {
      await res.body.dump()
      latencies.push(performance.now() - sent)
    }))
  }
  await Promise.all(pending)
  return latencies.sort((a, b) => a - b)
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 2)

export async function run (): Promise<void> {
  const redis = await startRedis()
  const provider = await startProvider()
  const prefix = `bench:${randomUUID()}:`
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: prefix,
    SEED: 'demo',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
    CRON_API_SECRET: 'bench-cron-secret-0123456789abcdef',
    CHAT_WEBHOOK_SECRET: SECRET,
    CHAT_API_BASE_URL: provider.url,
    RATE_LIMIT_MAX: '100000000',
  })
  const app = await buildApp(config, { logger: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const bare = Fastify()
  bare.post('/bare', async () => ({ success: true }))
  await bare.listen({ port: 0, host: '127.0.0.1' })
  const appPool = new Pool(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, { connections: 64 })
  const barePool = new Pool(`http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`, { connections: 64 })
  const phones = Array.from({ length: 200 }, (_, i) => `54911${String(i).padStart(8, '0')}`)

  try {
    const bareBody = signedMessage(phones[0] as string, 'hola')
    await closedLoop(barePool, 2_000, 64, () => ({ path: '/bare', ...bareBody }))
    const bareRate = await closedLoop(barePool, 20_000, 64, () => ({ path: '/bare', ...bareBody }))

    // acks: the webhook alone (the worker runs behind it)
    const ackRate = await closedLoop(appPool, 5_000, 64, (i) => ({ path: '/api/chat/webhook', ...signedMessage(phones[i % phones.length] as string, 'hola') }))
    for (const phone of phones) await app.chatWorker.idle(phone, 120_000)

    // turns: from the first POST until every mailbox is drained and every reply sent
    const turns = 3_000
    const started = performance.now()
    await closedLoop(appPool, turns, 64, (i) => ({ path: '/api/chat/webhook', ...signedMessage(phones[i % phones.length] as string, i % 2 ? 'hola' : 'ayuda') }))
    for (const phone of phones) await app.chatWorker.idle(phone, 120_000)
    const turnRate = turns / ((performance.now() - started) / 1000)

    const latencies = await openLoop(appPool, 1_000, 5, () => ({ path: '/api/chat/webhook', ...signedMessage(phones[Math.floor(Math.random() * phones.length)] as string, 'hola') }))
    for (const phone of phones) await app.chatWorker.idle(phone, 120_000)

    const client = new Redis(redis.url)
    const bytes = await client.call('MEMORY', 'USAGE', `${prefix}${keys.chat.bot.session(shardOf(phones[0] as string, app.config.chat.shards), phones[0] as string)}`, 'SAMPLES', '0') as number
    client.disconnect()

    process.stdout.write([
      'chat bot',
      `  bare Fastify route:           ${fmt(bareRate)} req/s`,
      `  webhook acks:                 ${fmt(ackRate)} /s (${fmt(ackRate / bareRate)} of bare)`,
      `  chat turns end to end:        ${fmt(turnRate)} /s (${fmt(turnRate / bareRate)} of bare)`,
      `  ack latency at 1,000 msg/s:   p50 ${fmt(quantile(latencies, 0.5))} ms, p99 ${fmt(quantile(latencies, 0.99))} ms (${latencies.length} acks)`,
      `  Redis bytes per idle session: ${bytes} (MEMORY USAGE of an UNLINKED phone's record, de-dup markers included)`,
      '',
    ].join('\n'))
  } finally {
    await appPool.close()
    await barePool.close()
    await bare.close()
    await app.close()
    await provider.close()
    await redis.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
