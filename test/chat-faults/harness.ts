import { spawn, type ChildProcess } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { freePort } from '../../scripts/lib/free-port.ts'
import { createCluster, toNode, waitForClusterOk } from '../../scripts/lib/redis-cluster.ts'
import { waitForRedis } from '../../scripts/lib/redis-server.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { envelopeOf } from '../../src/chat/store/scripts.ts'
import { buildApp } from '../../src/app.ts'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { loadConfig } from '../../src/config.ts'
import { createRedisCluster } from '../../src/plugins/redis.ts'
import { type RedisClient } from '../../src/stores/redis-client.ts'
import { keys } from '../../src/stores/keys.ts'

// Real parts for the fault suite: a redis-server with AOF (fsync always) that can be killed and restarted on
// its port, service processes (`node --import tsx src/server.ts`) that can be killed or sent SIGTERM, and a
// loopback provider that can fail, hang and throttle on command and records every reply it took.

export const SECRET = 'fault-suite-webhook-secret-0123456789'
export const JWT_SECRET = 'fault-suite-jwt-secret-0123456789abcdef'
export const SHARDS = 64

/** `n` new members' phone numbers, random enough that runs and files never share one. */
export const phones = (n: number): string[] => Array.from({ length: n }, () => `549${randomInt(1e9, 1e10 - 1)}`)
export const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }
export const PREFIX = 'faults:'

/**
 * Where the service keeps its data: one redis-server (its URL), or a Redis Cluster (its masters' `host:port`
 * and, since the embedded commerce backend refuses a cluster, the URL of a commerce backend run on its own).
 */
export type RedisTarget = string | { clusterNodes: readonly string[], commerceUrl: string }

const redisEnv = (target: RedisTarget): Record<string, string> => typeof target === 'string'
  ? { REDIS_URL: target }
  : { REDIS_CLUSTER_NODES: target.clusterNodes.join(','), COMMERCE_URL: target.commerceUrl }

/** A client of the target under the suite's key prefix, as the service opens it. */
export function openRedis (target: RedisTarget): RedisClient {
  return typeof target === 'string' ? new Redis(target, { keyPrefix: PREFIX }) : createRedisCluster(target.clusterNodes.map(toNode), PREFIX)
}

/** The demo clubs, written into the suite's Redis by a short-lived app (production refuses SEED=demo). */
export async function seedClubs (target: RedisTarget): Promise<void> {
  const seeder = await buildApp(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      SEED: 'demo',
      ...redisEnv(target),
      REDIS_KEY_PREFIX: PREFIX,
      JWT_SECRET,
      CRON_API_SECRET: 'fault-suite-cron-secret-0123456789',
      CHAT_WEBHOOK_SECRET: SECRET
    })
  )
  await seeder.ready()
  await seeder.close()
}

export interface RedisProcess { url: string, port: number, kill: () => Promise<void>, start: () => Promise<void>, stop: () => Promise<void> }

/** `extraArgs` go to redis-server as given (a cluster member's flags); its files stay in its own directory. */
export async function startRedis (extraArgs: readonly string[] = []): Promise<RedisProcess> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'club-faults-redis-'))
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir, ...extraArgs],
      { stdio: 'ignore' }
    )
    await waitForRedis(url)
  }
  const kill = async (): Promise<void> => {
    const c = child
    if (!c || c.exitCode !== null) return
    await new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGKILL') })
  }
  await start()
  return { url, port, start, kill, stop: async () => { await kill(); rmSync(dir, { recursive: true, force: true }) } }
}

export interface ClusterProcesses {
  /** `host:port` of each master. */
  nodes: string[]
  masters: RedisProcess[]
  stop: () => Promise<void>
}

/**
 * A Redis Cluster of masters that keep AOF (fsync always) and nodes.conf in their own directory, so a master
 * killed -9 restarts on its port with its data and its slots. Without replicas a dead master's slots have no
 * owner: `cluster-require-full-coverage no` lets the other masters keep answering for theirs meanwhile (with
 * the default, every master refuses every command once the dead one is declared failed).
 */
export async function startAofCluster (masters = 3): Promise<ClusterProcesses> {
  const members: RedisProcess[] = []
  const stop = async (): Promise<void> => { await Promise.all(members.map(async (m) => { await m.stop() })) }
  try {
    for (let i = 0; i < masters; i++) {
      members.push(
        await startRedis([
          '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000', '--cluster-require-full-coverage', 'no'
        ])
      )
    }
    const nodes = members.map((m) => `127.0.0.1:${m.port}`)
    await createCluster(nodes)
    return { nodes, masters: members, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

/** Restarts a killed master on its port and waits until every member answers cluster_state:ok. */
export async function restartMaster (cluster: ClusterProcesses, master: RedisProcess): Promise<void> {
  await master.start()
  await waitForClusterOk(cluster.nodes.map((n) => `redis://${n}`), 20_000)
}

export interface Instance {
  name: string
  port: number
  child: ChildProcess
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null, at: number }>
  logFile: string
}

const logDir = mkdtempSync(join(tmpdir(), 'club-faults-logs-'))

export async function startInstance (name: string, redis: RedisTarget, providerUrl: string, extraEnv: Record<string, string> = {}): Promise<Instance> {
  return await startProcess(name, 'src/server.ts', '/ready', {
    ...redisEnv(redis),
    CHAT_API_BASE_URL: providerUrl,
    CHAT_SEND_TIMEOUT_MS: '2000',
    CHAT_SHARDS: String(SHARDS),
    // the faults' load (up to ~200 replies a second) is above the provider's default tier: without the highest
    // tier its cases would measure the pace's queue instead of the fault (the pace has its own case)
    CHAT_SEND_RATE: '1000',
    ...extraEnv,
  })
}

/** The embedded commerce backend as a process of its own (`src/embedded-commerce/main.ts`), on one redis-server. */
export async function startCommerceBackend (redisUrl: string): Promise<Instance & { url: string }> {
  const backend = await startProcess('commerce', 'src/embedded-commerce/main.ts', '/health', { REDIS_URL: redisUrl })
  return { ...backend, url: `http://127.0.0.1:${backend.port}` }
}

/** The same backend with the demo clubs' data (`bench/commerce-server.ts`: production refuses SEED=demo), on one redis-server. */
export async function startSeededCommerce (redisUrl: string): Promise<Instance & { url: string }> {
  const backend = await startProcess('commerce', 'bench/commerce-server.ts', '/health', { REDIS_URL: redisUrl })
  return { ...backend, url: `http://127.0.0.1:${backend.port}` }
}

/** Spawns `node --import tsx <script>` in production mode and waits until `readyPath` answers 200. */
async function startProcess (name: string, script: string, readyPath: string, env: Record<string, string>): Promise<Instance> {
  const port = await freePort()
  // a suite's cleanup may have removed it already: the next suite of the file makes it again
  mkdirSync(logDir, { recursive: true })
  const logFile = join(logDir, `${name}-${Date.now()}.log`)
  const out = createWriteStream(logFile)
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REDIS_KEY_PREFIX: PREFIX,
      JWT_SECRET,
      CRON_API_SECRET: 'fault-suite-cron-secret-0123456789',
      CHAT_WEBHOOK_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.pipe(out)
  child.stderr?.pipe(out)
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null, at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }))
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)
    try {
      const res = await request(`http://127.0.0.1:${port}${readyPath}`)
      await res.body.dump()
      if (res.statusCode === 200) break
    } catch {}
    if (Date.now() > deadline) throw new Error(`${name} not ready after 60 s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { name, port, child, exited, logFile }
}

export async function killInstance (instance: Instance, signal: NodeJS.Signals = 'SIGKILL'): Promise<{
  code: number | null, signal: NodeJS.Signals | null, at: number
}> {
  if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill(signal)
  return await instance.exited
}

export const logTail = (instance: Instance): string => readFileSync(instance.logFile, 'utf8').slice(-4000)

/** `type`: the message's (text, interactive, template); `text`: its body, or a template's parameters. */
export interface Received { key: string, phone: string, at: number, text: string, type: string }
/** `code`: the provider's error code of a refusal (Graph's `error.code`). */
export interface Call { key: string, phone: string, at: number, status: number, code?: number }

/** The provider stand-in. A reply's X-Idempotency-Key is `<inbound message id>:<n>`. */
export interface Provider {
  url: string
  /** Every reply taken (200), in arrival order, re-sends included. */
  received: Received[]
  /** Every call answered, whatever the answer, in arrival order. */
  calls: Call[]
  /** Answer 500 to everything until this time. */
  failUntil: number
  /** Phones whose sends hang (never answered) while listed. */
  hang: Set<string>
  /** Calls hanging right now, by phone. */
  hanging: Map<string, number>
  /** Every call takes this long to answer. */
  delayMs: number
  /** Answer 429 with this Retry-After (seconds) to the next n calls. */
  throttle: { count: number, retryAfter: number }
  /** Answer 429 with the throttle's Retry-After to everything until this time. */
  throttleUntil: number
  /**
   * Phones under the pair rate limit: a send to one of them less than `pairRateMs` after the last it took is
   * refused with 131056, as Meta refuses too many messages to one person in a short time.
   */
  pairRate: Set<string>
  pairRateMs: number
  /** Phones whose 24-hour window is closed: any send but a template is refused with 131047. */
  windowClosed: Set<string>
  close: () => Promise<void>
}

/** A template's parameters, ' | ' between them (what the member reads in the club's words). */
const templateText = (template: { components?: Array<{ parameters: Array<{ text: string }> }> } | undefined): string =>
  (template?.components ?? []).flatMap((c) => c.parameters.map((p) => p.text)).join(' | ')

/** A Graph-style refusal, as Meta answers one (HTTP 400, the error's code in the body). */
const refusal = (code: number, message: string): string => JSON.stringify({ error: { code, message, type: 'OAuthException' } })

async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startProvider (): Promise<Provider> {
  // when each phone's last reply was taken (the pair rate counts from there)
  const taken = new Map<string, number>()
  const provider: Provider = {
    url: '',
    received: [],
    calls: [],
    failUntil: 0,
    hang: new Set(),
    hanging: new Map(),
    delayMs: 0,
    throttle: { count: 0, retryAfter: 0 },
    throttleUntil: 0,
    pairRate: new Set(),
    pairRateMs: 6_000,
    windowClosed: new Set(),
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) },
  }
  const server: Server = createServer((req, res) => {
    readBody(req).then(async (raw) => {
      const body = JSON.parse(raw) as {
        to?: string
        recipient?: string
        type: string
        text?: { body: string }
        interactive?: { body: { text: string } }
        template?: { components?: Array<{ parameters: Array<{ text: string }> }> }
      }
      // a phone, or the business-scoped user id of a member without one
      const to = body.to ?? body.recipient ?? ''
      if (provider.hang.has(to)) {
        provider.hanging.set(to, (provider.hanging.get(to) ?? 0) + 1)
        while (provider.hang.has(to) && !res.destroyed) await new Promise((resolve) => setTimeout(resolve, 50))
        provider.hanging.set(to, (provider.hanging.get(to) ?? 1) - 1)
      }
      if (provider.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, provider.delayMs))
      if (res.destroyed) return
      const call = { key: String(req.headers['x-idempotency-key']), phone: to, at: Date.now() }
      if (Date.now() < provider.failUntil) {
        provider.calls.push({ ...call, status: 500 })
        return res.writeHead(500).end('{"error":"down"}')
      }
      if (provider.throttle.count > 0 || Date.now() < provider.throttleUntil) {
        provider.throttle.count = Math.max(0, provider.throttle.count - 1)
        provider.calls.push({ ...call, status: 429 })
        return res.writeHead(429, { 'retry-after': String(provider.throttle.retryAfter) }).end('{"error":"slow down"}')
      }
      if (provider.windowClosed.has(to) && body.type !== 'template') {
        provider.calls.push({ ...call, status: 400, code: 131047 })
        return res.writeHead(400, { 'content-type': 'application/json' }).end(refusal(131047, 'Re-engagement message'))
      }
      const lastTaken = taken.get(to)
      if (provider.pairRate.has(to) && lastTaken !== undefined && call.at - lastTaken < provider.pairRateMs) {
        provider.calls.push({ ...call, status: 400, code: 131056 })
        return res.writeHead(400, { 'content-type': 'application/json' }).end(refusal(131056, '(Business Account, Consumer Account) pair rate limit hit'))
      }
      provider.calls.push({ ...call, status: 200 })
      taken.set(to, call.at)
      provider.received.push({
        key: String(req.headers['x-idempotency-key']),
        phone: to,
        at: Date.now(),
        text: body.text?.body ?? body.interactive?.body.text ?? templateText(body.template),
        type: body.type
      })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"messages":[{"id":"x"}]}')
    }).catch(() => { if (!res.destroyed) res.writeHead(500).end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return provider
}

/** One member's script: alternating "send a code" and "cancel", so every message gets exactly one reply. */
export function inbound (phone: string, i: number): { id: string, raw: string } {
  const id = `m-${phone}-${i}`
  return i % 2 === 0 ? { id, raw: reply(phone, id, 'link:code') } : { id, raw: text(phone, id, 'cancelar') }
}

export const text = (phone: string, id: string, body: string): string =>
  JSON.stringify({ message: { id, from: phone, type: 'text', text: { body } }, conversation: { phone_number: phone } })
const reply = (phone: string, id: string, choice: string): string =>
  JSON.stringify({
    message: { id, from: phone, type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: choice, title: choice } } },
    conversation: { phone_number: phone }
  })

/**
 * Posts like the provider does: signed, retried (same id) on 5xx or no answer, to whichever instance is up.
 * `statuses`, when given, collects every status code the webhook answered.
 */
export async function deliver (instances: () => Instance[], phone: string, i: number, accepted: Map<string, number>, statuses?: number[]): Promise<void> {
  const { id, raw } = inbound(phone, i)
  await post(instances, id, raw, i, accepted, statuses)
}

/** Each phone posts its messages one after the other, `gapMs` apart, all phones at once. */
export async function load (
  instances: () => Instance[], group: string[], perPhone: number, gapMs: number, accepted: Map<string, number>, statuses?: number[]
): Promise<void> {
  await Promise.all(group.map(async (phone) => {
    for (let i = 0; i < perPhone; i++) {
      await deliver(instances, phone, i, accepted, statuses)
      await new Promise((resolve) => setTimeout(resolve, gapMs))
    }
  }))
}

export async function post (
  instances: () => Instance[], id: string, raw: string, spread: number, accepted: Map<string, number>, statuses?: number[]
): Promise<void> {
  const headers = { 'content-type': 'application/json', 'x-webhook-event': 'chat.message.received', 'x-webhook-signature': signWebhookBody(SECRET, raw) }
  const deadline = Date.now() + 60_000
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const up = instances()
    const target = up[(spread + attempt) % Math.max(1, up.length)]
    if (target) {
      try {
        const res = await request(`http://127.0.0.1:${target.port}/api/chat/webhook`, {
          method: 'POST', body: raw, headers, headersTimeout: 5_000, bodyTimeout: 5_000
        })
        await res.body.dump()
        statuses?.push(res.statusCode)
        if (res.statusCode === 200) {
          accepted.set(id, Date.now())
          return
        }
      } catch {}
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`message ${id} never accepted`)
}

export interface Figures {
  sent: number, accepted: number, applied: number, delivered: number, resent: number, duplicated: number, lost: number, outOfOrder: number
}

/** Compares what was accepted with what the sessions applied and the provider took. */
export async function figures (
  target: RedisTarget, phones: string[], messagesPerPhone: number, accepted: Map<string, number>, provider: Provider
): Promise<Figures> {
  const redis = openRedis(target)
  try {
    let applied = 0
    let duplicated = 0
    let lost = 0
    let outOfOrder = 0
    const firstSeen = new Map<string, number>()
    for (const r of provider.received) if (!firstSeen.has(r.key)) firstSeen.set(r.key, r.at)
    for (const phone of phones) {
      const acceptedHere = Array.from({ length: messagesPerPhone }, (_, i) => inbound(phone, i).id).filter((id) => accepted.has(id))
      const record = await redis.get(keys.chat.bot.session(shardOf(phone, SHARDS), phone))
      const v = record === null ? 0 : envelopeOf(record).v ?? 0
      applied += Math.min(v, acceptedHere.length)
      duplicated += Math.max(0, v - acceptedHere.length)
      const keysHere = [...firstSeen.keys()].filter((k) => k.startsWith(`m-${phone}-`))
      duplicated += keysHere.filter((k) => !k.endsWith(':0')).length
      lost += acceptedHere.filter((id) => !firstSeen.has(`${id}:0`)).length
      const order = provider.received.filter((r) => r.phone === phone).map((r) => Number(/-(\d+):/.exec(r.key)?.[1]))
      const firsts = order.filter((n, idx) => order.indexOf(n) === idx)
      outOfOrder += firsts.filter((n, idx) => idx > 0 && n < (firsts[idx - 1] as number)).length
    }
    const mine = provider.received.filter((r) => phones.includes(r.phone))
    const delivered = new Set(mine.map((r) => r.key)).size
    return {
      sent: phones.length * messagesPerPhone,
      accepted: [...accepted.keys()].filter((id) => phones.some((p) => id.startsWith(`m-${p}-`))).length,
      applied,
      delivered,
      resent: mine.length - delivered,
      duplicated,
      lost,
      outOfOrder
    }
  } finally {
    redis.disconnect()
  }
}

/** Dead letters, and failed attempts counted against outbox heads, over every shard. */
export async function failures (redisUrl: string): Promise<{ deadLetters: number, sendTries: number }> {
  const redis = new Redis(redisUrl, { keyPrefix: PREFIX })
  try {
    const shards = Array.from({ length: SHARDS }, (_, s) => s)
    const dead = await Promise.all(shards.map(async (s) => await redis.hlen(keys.chat.bot.dead(s))))
    const tries = await Promise.all(shards.map(async (s) => await redis.hlen(keys.chat.bot.sendTries(s))))
    return { deadLetters: dead.reduce((a, b) => a + b, 0), sendTries: tries.reduce((a, b) => a + b, 0) }
  } finally {
    redis.disconnect()
  }
}

/** Waits until every accepted message of these phones has its reply at the provider. */
export async function settled (
  phones: string[], messagesPerPhone: number, accepted: Map<string, number>, provider: Provider, timeoutMs: number
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const want = phones.flatMap((p) => Array.from({ length: messagesPerPhone }, (_, i) => inbound(p, i).id)).filter((id) => accepted.has(id))
  while (Date.now() < deadline) {
    const got = new Set(provider.received.map((r) => r.key))
    if (want.every((id) => got.has(`${id}:0`))) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The most calls in any one second (a window starting at each call). */
export function windowedMax (times: number[], windowMs = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] as number) < (sorted[i] as number) + windowMs) j++
    most = Math.max(most, j - i)
  }
  return most
}

export function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

export const cleanupLogs = (): void => { rmSync(logDir, { recursive: true, force: true }) }
