import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { signWebhookBody } from '../src/chat/signature.ts'
import {
  cpuMicros, fmt, phoneOf, printTargets, quantile, scaled, SCALE, SECRETS, startChild, startProvider, webhook, type Child, type Request, type Sent, type Target
} from './lib.ts'

// A flood of delivery receipts while members chat: the service as one process with its defaults (production, one
// Redis), 32 members each waiting for their reply at the loopback provider before the next greeting (reply-gated),
// and, in every other phase, 5,000 status events (sent, delivered, read of replies the service sent) posted to the
// same webhook as fast as 16 connections take them, for as long as the members' phase runs. Receipts take a path of
// their own (src/chat/receipts/path.ts): the members' turn p99 with the flood is held against the same phase
// without it. Phases alternate (quiet, flood, quiet, flood, ...) and each pair's ratio is printed: on a shared,
// loaded machine a ratio taken seconds apart says more than two runs minutes apart.

const MEMBERS = 32
const PHONES = 200
const FLOOD = 5_000
const FLOOD_CONNECTIONS = 16
/** BENCH_RECEIPTS_RATE: the statuses paced at this many a second (as a provider spreads them) instead of as fast as taken. */
const PACED = Number(process.env.BENCH_RECEIPTS_RATE ?? '0')
const STATUSES = ['sent', 'delivered', 'read'] as const

/** `cpuUs`: the service's CPU time over the phase (user and system, µs). */
interface Phase { latencies: number[], statuses: number, seconds: number, cpuUs: number }

/** Routes each reply the provider takes to whoever waits on its phone, and keeps the message ids for the statuses. */
class Replies {
  readonly ids: Array<{ to: string, messageId: string }> = []
  private readonly waiters = new Map<string, () => void>()
  onSent = (sent: Sent): void => {
    if (this.ids.length < 20_000) this.ids.push({ to: sent.to, messageId: sent.messageId })
    const waiter = this.waiters.get(sent.to)
    this.waiters.delete(sent.to)
    waiter?.()
  }

  async next (phone: string): Promise<void> { await new Promise<void>((resolve) => this.waiters.set(phone, resolve)) }
}

/** One status event as the provider posts it, signed. */
function statusEvent (to: string, messageId: string, status: typeof STATUSES[number]): Request {
  const body = JSON.stringify({ message: { id: messageId, status, timestamp: String(Math.floor(Date.now() / 1000)) }, conversation: { phone_number: to } })
  return {
    path: '/api/chat/webhook',
    body,
    headers: {
      'content-type': 'application/json', 'x-webhook-event': `chat.message.${status}`, 'x-webhook-signature': signWebhookBody(SECRETS.CHAT_WEBHOOK_SECRET, body)
    },
  }
}

async function post (service: Child, r: Request): Promise<void> {
  const res = await service.pool.request({ method: 'POST', path: r.path, body: r.body, headers: r.headers })
  await res.body.dump()
  if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}`)
}

/** `turns` reply-gated greetings by 32 members over 200 phones; with `flood`, the status events posted meanwhile. */
async function phase (service: Child, replies: Replies, turns: number, base: number, flood: Request[] | undefined): Promise<Phase> {
  const phones = Array.from({ length: PHONES }, (_, i) => phoneOf(base, i))
  const greetings = Array.from({ length: turns }, (_, i) => webhook(phones[i % PHONES] as string, { text: 'hola' }))
  const latencies: number[] = []
  let next = 0
  let posted = 0
  const members = { running: true }
  const cpuBefore = cpuMicros(service) ?? 0
  const started = performance.now()
  const flooding = flood
    ? Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, async () => {
      while (members.running && posted < flood.length) {
        const i = posted++
        const wait = PACED > 0 ? started + (i * 1000) / PACED - performance.now() : 0
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
        await post(service, flood[i] as Request)
      }
    }))
    : Promise.resolve([])
  try {
    await Promise.all(Array.from({ length: MEMBERS }, async () => {
      while (next < greetings.length) {
        const r = greetings[next++] as Request & { id: string }
        const phone = JSON.parse(r.body ?? '{}').message.from as string
        const replied = replies.next(phone)
        const t0 = performance.now()
        await post(service, r)
        await replied
        latencies.push(performance.now() - t0)
      }
    }))
  } finally {
    members.running = false
    await flooding
  }
  return {
    latencies: latencies.sort((a, b) => a - b), statuses: posted, seconds: (performance.now() - started) / 1000, cpuUs: (cpuMicros(service) ?? 0) - cpuBefore
  }
}

export interface ReceiptsResult { targets: Target[] }

export async function run (): Promise<ReceiptsResult> {
  const redis = await startRedisServer()
  const provider = await startProvider()
  const replies = new Replies()
  provider.onSent = replies.onSent
  const service = await startChild('src/server.ts', {
    NODE_ENV: 'production', REDIS_URL: redis.url, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000', ...SECRETS
  })
  try {
    const turns = scaled(1_500, 300)
    // warm: the first greetings cost several times the later ones (code not yet optimised); their replies' ids are
    // what the statuses name
    await phase(service, replies, scaled(2_000, 400), 10_000_000, undefined)
    const pairs: Array<{ quiet: Phase, flood: Phase }> = []
    const rounds = Math.max(1, Math.round(3 * Math.min(1, SCALE * 2)))
    for (let round = 0; round < rounds; round++) {
      const known = replies.ids.slice(-2_000)
      const flood = Array.from({ length: FLOOD }, (_, i) => {
        const sent = known[i % known.length] as { to: string, messageId: string }
        return statusEvent(sent.to, sent.messageId, STATUSES[Math.floor(i / known.length) % STATUSES.length] as typeof STATUSES[number])
      })
      const quiet = await phase(service, replies, turns, 20_000_000 + round * 1_000, undefined)
      const flooded = await phase(service, replies, turns, 30_000_000 + round * 1_000, flood)
      pairs.push({ quiet, flood: flooded })
    }
    const lines = [
      `  one process (production defaults), ${MEMBERS} members reply-gated over ${PHONES} phones, ${turns} greetings a phase, ` +
        `statuses ${PACED > 0
          ? `paced at ${PACED}/s`
          : `as fast as ${FLOOD_CONNECTIONS} connections post them`}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
      ...pairs.map(({ quiet, flood }, i) => {
        const ratio = quantile(flood.latencies, 0.99) / quantile(quiet.latencies, 0.99)
        const perTurn = quiet.cpuUs / turns
        const perStatus = flood.statuses > 0 ? (flood.cpuUs - perTurn * turns) / flood.statuses : 0
        return `  pair ${i + 1}: without statuses p50 ${fmt(quantile(quiet.latencies, 0.5))} ms, p99 ${fmt(quantile(quiet.latencies, 0.99))} ms (${fmt(
          quiet.seconds
        )} s); ` +
          `with ${flood.statuses} statuses (${fmt(flood.statuses / flood.seconds)}/s) p50 ${fmt(quantile(flood.latencies, 0.5))} ms, p99 ${fmt(
            quantile(flood.latencies, 0.99)
          )} ms (${fmt(flood.seconds)} s); p99 ratio ${ratio.toFixed(2)}; ` +
          `service CPU ${fmt(perTurn)} µs a greeting, ${fmt(perStatus)} µs a status`
      }),
      '',
    ]
    process.stdout.write(lines.join('\n'))
    const ratios = pairs.map(({ quiet, flood }) => quantile(flood.latencies, 0.99) / quantile(quiet.latencies, 0.99)).sort((a, b) => a - b)
    const median = ratios[Math.floor(ratios.length / 2)] as number
    return {
      targets: [{
        figure: 'members\' turn p99 with 5,000 statuses vs without (median of pairs)', value: `${median.toFixed(2)}x`, target: '<= 1.10x', met: median <= 1.1
      }]
    }
  } finally {
    await service.stop()
    await provider.close()
    await redis.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printTargets((await run()).targets)
}
