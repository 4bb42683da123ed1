import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Pool } from 'undici'
import { freePort } from '../scripts/lib/free-port.ts'
import { signWebhookBody } from '../src/chat/signature.ts'

// What the benchmarks share: the service and a bare route as child processes of their own (so that RSS and a
// CPU profile are the service's alone), signed webhook calls, a loopback provider, load loops, metric scrapes
// and the targets table.

export const SECRETS = {
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
  CRON_API_SECRET: 'bench-cron-secret-0123456789abcdef',
  CHAT_WEBHOOK_SECRET: 'bench-webhook-secret-0123456789abcdef',
}

/** BENCH_SCALE (default 1) multiplies every count, so that a run while developing stays short. */
export const SCALE = Number(process.env.BENCH_SCALE ?? '1')
export const scaled = (n: number, min = 1): number => Math.max(min, Math.round(n * SCALE))

export type Input = { text: string } | { reply: string }

/** A linked member's round, as test/chat/conversation.scripted.test.ts types it: each step's kind and input. */
export const MEMBER_ROUND: ReadonlyArray<{ kind: string, input: (product: string) => Input }> = [
  { kind: 'greeting, linked', input: () => ({ text: 'hola' }) },
  { kind: 'product list', input: () => ({ reply: 'menu:browse' }) },
  { kind: 'choose a product', input: (product) => ({ reply: `product:${product}` }) },
  { kind: 'quantity, added to the cart', input: () => ({ text: '2' }) },
  { kind: 'back to the menu', input: () => ({ text: 'menu' }) },
  { kind: 'open the cart', input: () => ({ reply: 'menu:cart' }) },
  { kind: 'checkout', input: () => ({ reply: 'cart:checkout' }) },
  { kind: 'confirm the order', input: () => ({ reply: 'order:confirm' }) },
]

export interface Request { path: string, method?: 'GET' | 'POST', body?: string, headers: Record<string, string> }

/** One member input as the provider posts it, signed; `id` and `key` are returned so that a phone's markers can be found. */
export function webhook (phone: string, input: Input): Request & { id: string, key: string } {
  const id = `wamid.${randomUUID()}`
  const key = randomUUID()
  const message = 'text' in input
    ? { id, from: phone, type: 'text', text: { body: input.text } }
    : { id, from: phone, type: 'interactive', interactive: listOrButton(input.reply) }
  const body = JSON.stringify({ message, conversation: { phone_number: phone } })
  return {
    id,
    key,
    path: '/api/chat/webhook',
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-event': 'chat.message.received',
      'x-webhook-signature': signWebhookBody(SECRETS.CHAT_WEBHOOK_SECRET, body),
      'x-idempotency-key': key,
    },
  }
}

function listOrButton (id: string): Record<string, unknown> {
  const kind = /^(product|variant|tenant):/.test(id) ? 'list_reply' : 'button_reply'
  return { type: kind, [kind]: { id, title: id } }
}

export async function send (pool: Pool, r: Request): Promise<{ status: number, body: string }> {
  const res = await pool.request({ method: r.method ?? 'POST', path: r.path, body: r.body, headers: r.headers })
  return { status: res.statusCode, body: await res.body.text() }
}

/** Sends `count` requests with `concurrency` in flight; requests per second. Any answer but 2xx stops the bench. */
export async function closedLoop (pool: Pool, count: number, concurrency: number, make: (i: number) => Request): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const r = make(next++)
      const res = await pool.request({ method: r.method ?? 'POST', path: r.path, body: r.body, headers: r.headers })
      await res.body.dump()
      if (res.statusCode >= 300) throw new Error(`${r.path} answered ${res.statusCode}`)
    }
  }))
  return count / ((performance.now() - started) / 1000)
}

/** Open loop: one request every 1000/rate ms for `seconds`, whatever the answers; latencies in ms, sorted. */
export async function openLoop (pool: Pool, rate: number, seconds: number, make: () => Request): Promise<number[]> {
  const latencies: number[] = []
  const pending: Array<Promise<void>> = []
  const start = performance.now()
  const total = Math.round(rate * seconds)
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const r = make()
    const sent = performance.now()
    pending.push(pool.request({ method: r.method ?? 'POST', path: r.path, body: r.body, headers: r.headers }).then(async (res) => {
      await res.body.dump()
      latencies.push(performance.now() - sent)
    }))
  }
  await Promise.all(pending)
  return latencies.sort((a, b) => a - b)
}

export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
export const fmt = (n: number): string => Number.isFinite(n) ? n.toFixed(Math.abs(n) >= 100 ? 0 : 2) : String(n)
export const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

export async function waitFor (what: string, check: () => Promise<boolean>, timeoutMs = 120_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}

/** A reply the loopback provider took: to whom, when (ms, performance clock), the body, and the message id it answered. */
export interface Sent { to: string, at: number, body: Record<string, unknown>, messageId: string }

/** A loopback stand-in for the provider's send API that accepts everything and keeps what it took. */
export interface Provider {
  url: string
  sent: Sent[]
  /** When set, called with each reply as it arrives instead of keeping it in `sent` (the reply-gated loops wait on it). */
  onSent: ((sent: Sent) => void) | undefined
  /** Forgets what was sent (between phases, so that a long run does not keep every reply). */
  reset: () => void
  close: () => Promise<void>
}

export async function startProvider (): Promise<Provider> {
  const provider: Provider = {
    url: '',
    sent: [],
    onSent: undefined,
    reset: () => { provider.sent = [] },
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) },
  }
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
      const sent = { to: String(body.to), at: performance.now(), body, messageId: `wamid.${randomUUID()}` }
      if (provider.onSent) provider.onSent(sent)
      else provider.sent.push(sent)
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"messages":[{"id":"${sent.messageId}"}]}`)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return provider
}

/** A server of ours in a child process, reached through `pool`. */
export interface Child {
  url: string
  pool: Pool
  process: ChildProcess
  log: string
  /** SIGTERM, then waits for the exit (a CPU profile is written then). */
  stop: () => Promise<void>
}

const SERVICE = 'src/server.ts'
/** The floor a turn is held against (bench/confirm.ts) runs as the service does, compiled, beside it. */
const FLOOR = 'bench/floor-server.ts'
const builds = new Map<string, Promise<string>>()

/**
 * The service as production runs it (`npm run build`, then `node dist/src/server.js`): the checkout at `root`
 * compiled once per bench process by its own tsc and tsconfig.build.json, its Lua files beside, into a folder of its
 * own under the checkout's node_modules/.cache (its packages resolve from there, and nobody's dist/ is touched).
 * tsx, which names every function it compiles each time one is made, costs the service CPU production never pays.
 * BENCH_RUN=source runs src/server.ts through tsx instead: no build, for a quick run while changing code.
 */
async function compiledService (root: string): Promise<string> {
  const cache = join(root, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  const out = mkdtempSync(join(cache, 'club-bench-'))
  process.once('exit', () => { rmSync(out, { recursive: true, force: true }) })
  // the checkout's build and, where the checkout has it, the floor: a tsconfig's `files` adds to the `include` it extends
  const project = join(out, 'tsconfig.json')
  const floor = join(root, FLOOR)
  writeFileSync(project, JSON.stringify({ extends: join(root, 'tsconfig.build.json'), files: existsSync(floor) ? [floor] : [] }))
  await promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--outDir', out], { cwd: root })
  cpSync(join(root, 'src'), join(out, 'src'), { recursive: true, filter: (path) => path.endsWith('.lua') || statSync(path).isDirectory() })
  return out
}

/**
 * Starts `script` (a .ts file relative to `cwd`: another checkout's for a comparison) with `env`, waits until
 * GET /health answers. The service and the floor run compiled (`compiledService`), any other script through tsx. Its output goes
 * straight to a log file, not through the bench's event loop.
 */
export async function startChild (script: string, env: Record<string, string>, nodeArgs: string[] = [], cwd = process.cwd()): Promise<Child> {
  const port = await freePort()
  const log = join(mkdtempSync(join(tmpdir(), 'club-bench-')), 'child.log')
  const out = openSync(log, 'w')
  let entry = ['--import', 'tsx', script]
  if ((script === SERVICE || script === FLOOR) && process.env.BENCH_RUN !== 'source') {
    let build = builds.get(cwd)
    if (!build) builds.set(cwd, build = compiledService(cwd))
    entry = [join(await build, script.replace(/\.ts$/, '.js'))]
  }
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd,
    env: { PATH: process.env.PATH, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', out, out],
  })
  closeSync(out)
  const url = `http://127.0.0.1:${port}`
  const pool = new Pool(url, { connections: 64 })
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    await pool.close()
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
  }
  try {
    await waitFor(`${script} to answer /health (log: ${log})`, async () => {
      if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} (log: ${log})`)
      try {
        return (await send(pool, { path: '/health', method: 'GET', headers: {} })).status === 200
      } catch {
        return false
      }
    }, 60_000, 100)
  } catch (err) {
    await stop()
    throw err
  }
  return { url, pool, process: child, log, stop }
}

/** The service (src/server.ts) on the given Redis, with the bench's secrets and the given extra variables. */
export async function startService (env: Record<string, string>, nodeArgs: string[] = [], cwd?: string): Promise<Child> {
  return await startChild('src/server.ts', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    SEED: 'demo',
    RATE_LIMIT_MAX: '100000000',
    ...SECRETS,
    ...env,
  }, nodeArgs, cwd)
}

/**
 * Sums every series of each named metric in the service's /metrics (counters, gauges, a histogram's _count). A
 * labelled metric nothing was counted in yet is absent: 0 when `absentIsZero`, else an error (a renamed metric).
 */
export async function scrape (service: Child, names: readonly string[], absentIsZero = false): Promise<Record<string, number>> {
  const { status, body } = await send(service.pool, { path: '/metrics', method: 'GET', headers: {} })
  if (status !== 200) throw new Error(`/metrics answered ${status}`)
  const totals: Record<string, number> = {}
  for (const line of body.split('\n')) {
    const name = line.split(/[{ ]/, 1)[0] ?? ''
    if (!names.includes(name)) continue
    totals[name] = (totals[name] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  for (const name of names) {
    if (totals[name] !== undefined) continue
    if (!absentIsZero) throw new Error(`/metrics has no ${name}`)
    totals[name] = 0
  }
  return totals
}

export const TURNS_APPLIED = 'club_chat_turns_applied_total'
export const OUTBOX_PHONES = 'club_chat_outbox_phones'

/** The service as deployed: one instance, or several on one Redis (the first takes the webhooks and the API). */
export type Service = Child | readonly Child[]
const instancesOf = (service: Service): readonly Child[] => 'pool' in service ? [service] : service

/** Turns applied by every instance of the service together. */
export async function turnsApplied (service: Service): Promise<number> {
  const counts = await Promise.all(instancesOf(service).map(async (i) => (await scrape(i, [TURNS_APPLIED]))[TURNS_APPLIED] ?? 0))
  return counts.reduce((a, b) => a + b, 0)
}

/** Whether the service has applied `turns` turns in all and has no reply left to send (two scrapes: not free). */
export async function isDrained (service: Service, turns: number): Promise<boolean> {
  // turns first: an outbox read before the last commit would be empty with that commit's replies still to come
  if (await turnsApplied(service) < turns) return false
  // the outbox gauge counts from Redis: any instance tells it for all
  return (await scrape(instancesOf(service)[0] as Child, [OUTBOX_PHONES]))[OUTBOX_PHONES] === 0
}

/** Waits until the service has applied `turns` turns in all and has no reply left to send. */
export async function drained (service: Service, turns: number): Promise<void> {
  await waitFor(`${turns} turns applied and every reply sent`, async () => await isDrained(service, turns), 300_000, 100)
}

/**
 * Waits until the service has applied `turns` turns in all (replies may still be on their way); answers when
 * that happened (performance clock), interpolated between the last two scrapes: a scrape costs the service a
 * little (its gauges read Redis), so it is taken only every 50 ms.
 */
export async function applied (service: Service, turns: number): Promise<number> {
  let last = { at: performance.now(), count: await turnsApplied(service) }
  const deadline = Date.now() + 300_000
  while (last.count < turns) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${turns} turns applied`)
    await sleep(50)
    const now = { at: performance.now(), count: await turnsApplied(service) }
    if (now.count >= turns) return last.at + (now.at - last.at) * (turns - last.count) / Math.max(1, now.count - last.count)
    last = now
  }
  return last.at
}

/** CPU time (user and system, µs) a child has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuMicros (child: Child): number | undefined {
  try {
    // fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 a second)
    const fields = readFileSync(`/proc/${child.process.pid ?? 0}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return undefined
  }
}

/**
 * A clock of the CPU time a process's threads have used, in µs read from nanoseconds: the sum of the first field
 * of /proc/<pid>/task/<tid>/schedstat (time on a core, ns) over its threads. /proc/<pid>/stat's utime + stime
 * count 10 ms ticks, too coarse for a floor of 125 µs a turn over 400 turns (5 ticks). A thread that exits takes
 * its time out of that sum (/proc/<pid>/schedstat is the main thread's alone): its last reading is kept, and the
 * clock counts the threads that exited (`exited`), whose time since the reading before is not counted.
 */
export interface CpuClock { read: () => number, exited: () => number }
/**
 * The thread `node --cpu-prof` adds to take its samples (its name in /proc/<pid>/task/<tid>/comm): the bench's
 * instrument, not the process measured, and about 7 % of a profiled service's CPU; left out of the clock.
 */
const PROFILER_THREAD = 'v8:ProfEvntProc'
export function cpuClock (pid: number): CpuClock {
  let seen = new Map<string, number>()
  let gone = 0
  let exited = 0
  const read = (): number => {
    const live = new Map<string, number>()
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === PROFILER_THREAD) continue
        live.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]))
      } catch {
        // exited between the listing and the read: counted as gone below
      }
    }
    for (const [tid, ns] of seen) {
      if (live.has(tid)) continue
      gone += ns
      exited++
    }
    seen = live
    let ns = gone
    for (const n of live.values()) ns += n
    return ns / 1000
  }
  read()
  return { read, exited: () => exited }
}

/** One line of the targets table. */
export interface Target { figure: string, value: string, target: string, met: boolean }

export function printTargets (targets: readonly Target[]): void {
  const width = Math.max(...targets.map((t) => t.figure.length))
  const valueWidth = Math.max(...targets.map((t) => t.value.length))
  const lines = targets.map((t) => `  ${t.met ? 'met    ' : 'NOT met'}  ${t.figure.padEnd(width)}  ${t.value.padStart(valueWidth)}   target ${t.target}`)
  process.stdout.write(`\ntargets (docs/performance.md)\n${lines.join('\n')}\n`)
}

export const phoneOf = (base: number, i: number): string => `549${String(base + i).padStart(10, '0')}`

/** Microseconds a Redis server has spent running commands so far (its own clock, INFO commandstats: scripts with what they call; INFO left out). */
export async function redisMicros (redis: { info: (section: string) => Promise<string> }): Promise<number> {
  let us = 0
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm)) if (m[1] !== 'info') us += Number(m[2])
  return us
}
