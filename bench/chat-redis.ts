import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import { createServer, connect, type AddressInfo, type Server } from 'node:net'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { buildApp } from '../src/app.ts'
import { signWebhookBody } from '../src/chat/signature.ts'
import { loadConfig } from '../src/config.ts'

// The chat pipeline's Redis traffic counted from outside (not a timed test): the service talks to Redis through
// a TCP proxy that counts what its clients send, commands (RESP arrays) and writes (each write is one round
// trip or the start of one pipeline). Prints the traffic of an idle instance per second and of one "hola" turn
// of an unlinked phone, webhook to delivered reply, averaged over a few turns one after another.

const SECRET = 'bench-webhook-secret-0123456789abcdef'

interface Counts { commands: number, writes: number, names: Map<string, number> }

/** Counts the commands of a RESP stream, as they come (a command may span chunks). */
class RespCounter {
  private buffer = Buffer.alloc(0)
  constructor (private readonly counts: Counts) {}

  push (chunk: Buffer): void {
    this.counts.writes++
    this.buffer = Buffer.concat([this.buffer, chunk])
    for (;;) {
      const end = this.command(this.buffer)
      if (end === undefined) return
      this.buffer = this.buffer.subarray(end)
    }
  }

  /** The offset after one whole command at the start of `b`, counted; undefined until it has all arrived. */
  private command (b: Buffer): number | undefined {
    const line = (at: number): [string, number] | undefined => {
      const nl = b.indexOf('\r\n', at)
      return nl < 0 ? undefined : [b.toString('latin1', at, nl), nl + 2]
    }
    const head = line(0)
    if (!head) return undefined
    const n = Number(head[0].slice(1))
    let at = head[1]
    let name = ''
    for (let i = 0; i < n; i++) {
      const len = line(at)
      if (!len) return undefined
      const size = Number(len[0].slice(1))
      if (b.length < len[1] + size + 2) return undefined
      if (i === 0) name = b.toString('latin1', len[1], len[1] + size).toLowerCase()
      at = len[1] + size + 2
    }
    this.counts.commands++
    this.counts.names.set(name, (this.counts.names.get(name) ?? 0) + 1)
    return at
  }
}

async function startProxy (target: URL, counts: Counts): Promise<{ url: string, server: Server }> {
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    const counter = new RespCounter(counts)
    client.on('data', (chunk: Buffer) => { counter.push(chunk); upstream.write(chunk) })
    upstream.pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.on('error', () => {})
    upstream.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

const snapshot = (c: Counts): Counts => ({ commands: c.commands, writes: c.writes, names: new Map(c.names) })
const diff = (after: Counts, before: Counts): Counts => ({
  commands: after.commands - before.commands,
  writes: after.writes - before.writes,
  names: new Map([...after.names].map(([k, v]) => [k, v - (before.names.get(k) ?? 0)] as [string, number]).filter(([, v]) => v > 0)),
})
/** Per-shard keys (queues, leases, dead letters) are shared by all of a shard's phones: not counted per phone. */
const SHARD_KEY = /\}:(ready|owners|sendable|senders|send-tries|dead|dead:index|handoff-due)$/

/** MEMORY USAGE of every chat key that is not a shard's, over the phones that wrote. */
async function bytesPerPhone (url: string, prefix: string, phones: number): Promise<number> {
  const client = new Redis(url)
  try {
    let total = 0
    let cursor = '0'
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}{chat:*`, 'COUNT', 1000)
      cursor = next
      for (const key of found.filter((k) => !SHARD_KEY.test(k))) total += Number(await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))
    } while (cursor !== '0')
    return total / phones
  } finally {
    client.disconnect()
  }
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

export async function run (): Promise<void> {
  const redis = await startRedisServer()
  const counts: Counts = { commands: 0, writes: 0, names: new Map() }
  const proxy = await startProxy(new URL(redis.url), counts)
  let delivered: () => void = () => {}
  const provider = createHttpServer((req, res) => {
    req.resume()
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"messages":[{"id":"x"}]}'); delivered() })
  })
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_URL: proxy.url,
    REDIS_KEY_PREFIX: `bench:${randomUUID()}:`,
    SEED: 'demo',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
    CRON_API_SECRET: 'bench-cron-secret-0123456789abcdef',
    CHAT_WEBHOOK_SECRET: SECRET,
    CHAT_API_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
  })
  const app = await buildApp(config, { logger: false })
  await app.ready()
  try {
    await sleep(3_000)
    const idleSeconds = 5
    const idleStart = snapshot(counts)
    await sleep(idleSeconds * 1000)
    const idle = diff(counts, idleStart)

    const turns = 10
    const turnStart = snapshot(counts)
    const started = performance.now()
    for (let i = 0; i < turns; i++) {
      const phone = `54911${String(i).padStart(8, '0')}`
      const body = JSON.stringify({ message: { id: `wamid.${randomUUID()}`, from: phone, type: 'text', text: { body: 'hola' } } })
      const replied = new Promise<void>((resolve) => { delivered = resolve })
      const res = await app.inject({ method: 'POST', url: '/api/chat/webhook', payload: body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(SECRET, body), 'x-idempotency-key': randomUUID() } })
      if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}`)
      await replied
      // the reply's ack follows the provider's answer
      await sleep(100)
    }
    const seconds = (performance.now() - started) / 1000
    const turn = diff(counts, turnStart)
    const bytes = await bytesPerPhone(redis.url, config.redisKeyPrefix, turns)
    const idleShare = (n: number) => n / idleSeconds * seconds
    const perTurn = (n: number, idleN: number) => ((n - idleShare(idleN)) / turns).toFixed(1)
    const names = (c: Counts, per: number) => [...c.names].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / per).toFixed(1)}`).join(', ')
    process.stdout.write([
      'chat pipeline Redis traffic (through a counting proxy)',
      `  idle instance:            ${(idle.commands / idleSeconds).toFixed(1)} commands/s in ${(idle.writes / idleSeconds).toFixed(1)} writes/s (${names(idle, idleSeconds)})`,
      `  "hola", unlinked, a turn: ${perTurn(turn.commands, idle.commands)} commands in ${perTurn(turn.writes, idle.writes)} writes, webhook to delivered reply, idle traffic taken off`,
      `    all commands per turn (idle included): ${names(turn, turns)}`,
      `  Redis bytes per idle unlinked phone, everything it keeps (session, de-dup markers, inbound moment): ${bytes.toFixed(0)}`,
      '',
    ].join('\n'))
  } finally {
    await app.close()
    await new Promise<void>((resolve) => provider.close(() => resolve()))
    proxy.server.close()
    await redis.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
