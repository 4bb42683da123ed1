import { readFileSync } from 'node:fs'
import { setPriority } from 'node:os'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { startRedisServer, type RedisServer } from '../scripts/lib/redis-server.ts'
import {
  closedLoop, cpuMicros, fmt, phoneOf, quantile, scaled, SECRETS, startChild, startProvider, webhook, type Child, type Provider, type Request, type Target
} from './lib.ts'

// The deployment most clubs run, measured from outside: the service as ONE process with its defaults
// (NODE_ENV=production, one Redis, CHAT_SEND_RATE=1000, the provider's highest tier), beside the split deployment of
// docs/operations.md (a web instance and a worker at nice 10 on the same Redis). 200 unlinked phones greet, and 32
// members each wait for their reply to reach the loopback provider before sending the next (reply-gated: the rate
// and the time from the webhook's post to its reply); then a burst (every greeting posted at once, 64 in flight,
// timed until the last reply arrived); then the webhook's acks alone (64 in flight). Each phase also gives the
// service's CPU time per greeting (all its processes, from /proc), which moves much less with the machine's load.
//
// `npx tsx bench/greetings.ts --vs DIR` runs another checkout's service (DIR/src/server.ts with its own node_modules)
// beside this one's, phase by phase in turn (A B A B ...), and prints the ratio of each pair: on a shared machine a
// ratio taken seconds apart says more than two runs minutes apart. `--runs N` rounds (default 3), `--only single` or
// `--only split`, `--profile DIR` writes each process's CPU profile (node --cpu-prof) under DIR, `--monitor` first
// counts each deployment's Redis calls per greeting by what they touch (MONITOR), `--runs 0` only that.

const PHONES = 200
const BURST_CONCURRENCY = 64
const WORKER_NICE = 10
/** Members waiting for their reply at once (BENCH_MEMBERS: 1 shows a greeting's own latency, without queueing). */
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? '32')

type Kind = 'single' | 'split'

interface Deployment {
  name: string
  /** Takes the webhooks: the single process, or the split deployment's web instance. */
  entry: Child
  instances: Child[]
  redis: RedisServer
  /** A connection of the bench's own to that Redis, for its command counts. */
  direct: Redis
  phones: string[]
}

/** Routes each reply the provider takes to whoever waits on that phone, and counts them. */
class Replies {
  count = 0
  private readonly waiters = new Map<string, () => void>()
  private target: { count: number, resolve: () => void } | undefined

  constructor (provider: Provider) {
    provider.onSent = (sent) => {
      this.count++
      const waiter = this.waiters.get(sent.to)
      if (waiter) {
        this.waiters.delete(sent.to)
        waiter()
      }
      if (this.target && this.count >= this.target.count) {
        this.target.resolve()
        this.target = undefined
      }
    }
  }

  /** Resolves at the next reply to `phone`. */
  async next (phone: string): Promise<void> {
    await new Promise<void>((resolve) => this.waiters.set(phone, resolve))
  }

  /** Resolves once `count` replies in all have arrived; the time then (performance clock). */
  async reach (count: number): Promise<number> {
    if (this.count < count) await new Promise<void>((resolve) => { this.target = { count, resolve } })
    return performance.now()
  }
}

async function withDeadline<T> (what: string, seconds: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`bench: ${what} not done in ${seconds} s`)), seconds * 1000
    )
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** The service's environment as production runs it; only what must be set is set. */
function productionEnv (redis: RedisServer, provider: Provider, extra: Record<string, string>): Record<string, string> {
  return { NODE_ENV: 'production', REDIS_URL: redis.url, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000', ...SECRETS, ...extra }
}

async function startDeployment (
  kind: Kind, root: string, name: string, base: number, provider: Provider, profileDir: string | undefined, env: Record<string, string>
): Promise<Deployment> {
  const redis = await startRedisServer()
  const profiled = (role: string): string[] => profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir, `${name}-${kind}-${role}`)] : []
  const start = async (role: string, extra: Record<string, string>): Promise<Child> =>
    await startChild('src/server.ts', productionEnv(redis, provider, { ...env, ...extra }), profiled(role), root)
  const phones = Array.from({ length: PHONES }, (_, i) => phoneOf(base, i))
  if (kind === 'single') {
    const entry = await start('single', {})
    return { name: `${name} single`, entry, instances: [entry], redis, direct: new Redis(redis.url), phones }
  }
  const web = await start('web', { CHAT_LANES: 'off' })
  const worker = await start('worker', { CHAT_LANES: 'on' })
  setPriority(worker.process.pid as number, WORKER_NICE)
  return { name: `${name} split`, entry: web, instances: [web, worker], redis, direct: new Redis(redis.url), phones }
}

async function stopDeployment (d: Deployment): Promise<void> {
  for (const i of d.instances) await i.stop()
  d.direct.disconnect()
  await d.redis.stop()
}

const cpuOf = (d: Deployment): number => d.instances.reduce((sum, i) => sum + (cpuMicros(i) ?? 0), 0)

/** Read and write system calls the deployment's processes made so far (/proc/<pid>/io): socket reads and writes, mostly. */
function syscallsOf (d: Deployment): number {
  return d.instances.reduce((sum, i) => {
    const io = readFileSync(`/proc/${i.process.pid ?? 0}/io`, 'utf8')
    return sum + Number(/syscr: (\d+)/.exec(io)?.[1]) + Number(/syscw: (\d+)/.exec(io)?.[1])
  }, 0)
}

/** Commands the deployment's Redis ran so far (INFO commandstats, those inside scripts included; INFO left out), and the bytes it read. */
async function commandsOf (d: Deployment): Promise<{ commands: number, bytes: number }> {
  let commands = 0
  for (const m of (await d.direct.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') commands += Number(m[2])
  return { commands, bytes: Number(/total_net_input_bytes:(\d+)/.exec(await d.direct.info('stats'))?.[1]) }
}

/** What a phase cost the deployment per greeting: CPU µs, system calls, Redis commands. */
interface Cost { cpuUs: number, syscalls: number, commands: number, redisBytes: number }
async function costFrom (d: Deployment): Promise<(count: number) => Promise<Cost>> {
  const before = { cpu: cpuOf(d), sys: syscallsOf(d), redis: await commandsOf(d) }
  return async (count) => {
    const redis = await commandsOf(d)
    return {
      cpuUs: (cpuOf(d) - before.cpu) / count,
      syscalls: (syscallsOf(d) - before.sys) / count,
      commands: (redis.commands - before.redis.commands) / count,
      redisBytes: (redis.bytes - before.redis.bytes) / count,
    }
  }
}

async function post (d: Deployment, r: Request): Promise<void> {
  const res = await d.entry.pool.request({ method: 'POST', path: r.path, body: r.body, headers: r.headers })
  await res.body.dump()
  if (res.statusCode !== 200) throw new Error(`${d.name}: webhook answered ${res.statusCode}`)
}

export interface Figures {
  gated: number
  p50: number
  p99: number
  gatedCpuUs: number
  gatedSyscalls: number
  gatedCommands: number
  gatedRedisBytes: number
  burst: number
  burstCpuUs: number
  acks: number
}

/** Greetings signed beforehand, phone after phone, so that the client's own work stays out of the timed loops. */
const hellos = (phones: readonly string[], count: number): Request[] =>
  Array.from({ length: count }, (_, i) => webhook(phones[i % phones.length] as string, { text: 'hola' }))

/**
 * Redis calls by what they touch, counted with MONITOR while `work` runs (`--monitor`: MONITOR slows Redis, so the
 * rates of such a run are not comparable; the counts are): each command or script by its name and its first key's
 * hash tag without the phone or number (`evalsha {chat-pace}` is one ask of the provider's pace).
 */
async function monitored<T> (d: Deployment, work: () => Promise<T>): Promise<{ result: T, calls: Map<string, number> }> {
  const calls = new Map<string, number>()
  const monitor = await d.direct.monitor()
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    // commands run inside a script come with the source 'lua': the script itself is counted once
    if (source === 'lua') return
    const name = (args[0] ?? '').toLowerCase()
    const key = name === 'evalsha' || name === 'eval' ? args[3] : args[1]
    const what = `${name} ${/\{[a-z-]+/.exec(key ?? '')?.[0] ?? ''}`.trim()
    calls.set(what, (calls.get(what) ?? 0) + 1)
  })
  try {
    return { result: await work(), calls }
  } finally {
    monitor.disconnect()
  }
}

/** `count` greetings, `members` each waiting for the reply before the next, over the deployment's 200 phones. */
async function gated (d: Deployment, replies: Replies, count: number, members = MEMBERS): Promise<{ rate: number, latencies: number[], cost: Cost }> {
  const queues = new Map<string, Request[]>(d.phones.map((p) => [p, []]))
  hellos(d.phones, count + d.phones.length).forEach((r, i) => queues.get(d.phones[i % d.phones.length] as string)?.push(r))
  const free = [...d.phones]
  const latencies: number[] = []
  let sent = 0
  const cost = await costFrom(d)
  const started = performance.now()
  await withDeadline(`${d.name}: ${count} reply-gated greetings`, 300, Promise.all(Array.from({ length: members }, async () => {
    while (sent < count) {
      sent++
      const phone = free.shift() as string
      const r = queues.get(phone)?.shift() ?? webhook(phone, { text: 'hola' })
      const t0 = performance.now()
      const replied = replies.next(phone)
      await post(d, r)
      await replied
      latencies.push(performance.now() - t0)
      free.push(phone)
    }
  })))
  const seconds = (performance.now() - started) / 1000
  return { rate: count / seconds, latencies: latencies.sort((a, b) => a - b), cost: await cost(count) }
}

/** Every greeting posted at once (64 in flight); greetings per second until the last reply arrived. */
async function burst (d: Deployment, replies: Replies, count: number): Promise<{ rate: number, cost: Cost }> {
  const requests = hellos(d.phones, count)
  const expected = replies.count + count
  const cost = await costFrom(d)
  const started = performance.now()
  await closedLoop(d.entry.pool, count, BURST_CONCURRENCY, (i) => requests[i] as Request)
  const done = await withDeadline(`${d.name}: a burst's ${count} replies`, 300, replies.reach(expected))
  return { rate: count / ((done - started) / 1000), cost: await cost(count) }
}

/** The webhook's acks alone (64 in flight), then its replies drained, untimed. */
async function acks (d: Deployment, replies: Replies, count: number): Promise<number> {
  const requests = hellos(d.phones, count)
  const expected = replies.count + count
  const rate = await closedLoop(d.entry.pool, count, BURST_CONCURRENCY, (i) => requests[i] as Request)
  await withDeadline(`${d.name}: the acks' ${count} replies`, 300, replies.reach(expected))
  return rate
}

/** Prints the Redis calls per greeting of a reply-gated phase, by what they touch (`--monitor`). */
async function countCalls (d: Deployment, replies: Replies): Promise<void> {
  const count = scaled(6_000, 600)
  const { calls } = await monitored(d, async () => await gated(d, replies, count))
  const rows = [...calls].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ${fmt(n / count)}`)
  process.stdout.write(`  ${d.name.padEnd(14)} Redis calls per reply-gated greeting (MONITOR, ${count} greetings): ${rows.join(', ')}\n`)
}

async function measure (d: Deployment, replies: Replies): Promise<Figures> {
  const g = await gated(d, replies, scaled(6_000, 600))
  const b = await burst(d, replies, scaled(4_000, 400))
  const a = await acks(d, replies, scaled(5_000, 500))
  return {
    gated: g.rate,
    p50: quantile(g.latencies, 0.5),
    p99: quantile(g.latencies, 0.99),
    gatedCpuUs: g.cost.cpuUs,
    gatedSyscalls: g.cost.syscalls,
    gatedCommands: g.cost.commands,
    gatedRedisBytes: g.cost.redisBytes,
    burst: b.rate,
    burstCpuUs: b.cost.cpuUs,
    acks: a,
  }
}

const median = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5)

export const describe = (f: Figures): string =>
  `reply-gated ${fmt(f.gated)}/s (p50 ${fmt(f.p50)} ms, p99 ${fmt(f.p99)} ms; per greeting ${fmt(f.gatedCpuUs)} µs CPU, ` +
  `${fmt(
    f.gatedSyscalls
  )} syscalls, ${fmt(
    f.gatedCommands
  )} Redis commands, ${fmt(f.gatedRedisBytes)} B to Redis), burst ${fmt(f.burst)}/s (${fmt(f.burstCpuUs)} µs CPU/greeting), acks ${fmt(f.acks)}/s`

const FIELDS = ['gated', 'p50', 'p99', 'gatedCpuUs', 'gatedSyscalls', 'gatedCommands', 'gatedRedisBytes', 'burst', 'burstCpuUs', 'acks'] as const

export interface Options {
  kinds: readonly Kind[]
  roots: ReadonlyArray<{ name: string, root: string, env?: Record<string, string> }>
  runs: number
  profileDir?: string | undefined
  /** Before the runs, each deployment's Redis calls per greeting counted with MONITOR. */
  monitor?: boolean
}

/** Runs every deployment of every checkout, in turn, `runs` times; answers each deployment's figures of each run. */
export async function run (opts: Options): Promise<Map<string, Figures[]>> {
  const provider = await startProvider()
  const replies = new Replies(provider)
  const deployments: Deployment[] = []
  const results = new Map<string, Figures[]>()
  try {
    let base = 6_000_000
    for (const kind of opts.kinds) {
      for (const { name, root, env } of opts.roots) {
        const d = await startDeployment(kind, root, name, base, provider, opts.profileDir, env ?? {})
        deployments.push(d)
        base += 10_000
        // warm: the first thousands of webhooks cost several times the later ones (code not yet optimised)
        await gated(d, replies, scaled(3_000, 300))
        await burst(d, replies, scaled(2_000, 200))
        results.set(d.name, [])
      }
    }
    if (opts.monitor) for (const d of deployments) await countCalls(d, replies)
    for (let r = 0; r < opts.runs; r++) {
      for (const d of deployments) {
        const f = await measure(d, replies)
        results.get(d.name)?.push(f)
        process.stdout.write(`  run ${r + 1} ${d.name.padEnd(14)} ${describe(f)}\n`)
      }
    }
  } finally {
    for (const d of deployments) await stopDeployment(d)
    await provider.close()
  }
  return results
}

/** The median of each figure over the runs. */
export function medians (runs: readonly Figures[]): Figures {
  return Object.fromEntries(FIELDS.map((f) => [f, median(runs.map((r) => r[f]))])) as unknown as Figures
}

/** Each figure of A over B pair by pair (run i of each), and the median of those ratios. */
export function pairedRatios (a: readonly Figures[], b: readonly Figures[]): Record<typeof FIELDS[number], number> {
  return Object.fromEntries(FIELDS.map((f) => [f, median(a.map((x, i) => x[f] / (b[i]?.[f] ?? NaN)))])) as Record<typeof FIELDS[number], number>
}

/**
 * `npm run bench`'s part: this checkout's single process beside its split deployment, one round each, and the
 * targets of the single process (docs/performance.md). CHAT_SEND_RATE=1000 lets one business number send at most
 * 1,000 replies a second, so with 32 members waiting each for one reply the rate is at most 1,000 a second and
 * the median wait at least 32 ms (Little's law): the line says how close the run came to that ceiling.
 */
export async function deployments (): Promise<Target[]> {
  const results = await run({ kinds: ['single', 'split'], roots: [{ name: 'this', root: process.cwd() }], runs: 1 })
  const single = medians(results.get('this single') ?? [])
  process.stdout.write(
    `  the provider's pace (CHAT_SEND_RATE=1000) bounds reply-gated greetings at 1,000/s, p50 >= ${MEMBERS} ms: the single process ran at ${fmt(
      single.gated / 10
    )}% of it\n`
  )
  return [
    {
      figure: 'single process, reply-gated greetings',
      value: `${fmt(single.gated)}/s`,
      target: '>= 1,450/s (the pace bounds it at 1,000/s)',
      met: single.gated >= 1450
    },
    {
      figure: 'single process, reply-gated p50',
      value: `${fmt(single.p50)} ms`,
      target: `<= 20 ms (the pace bounds it at >= ${MEMBERS} ms)`,
      met: single.p50 <= 20
    },
  ]
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      vs: { type: 'string' },
      runs: { type: 'string', default: '3' },
      only: { type: 'string' },
      profile: { type: 'string' },
      env: { type: 'string', multiple: true },
      'vs-env': { type: 'string', multiple: true },
      monitor: { type: 'boolean' }
    },
  })
  const envOf = (pairs: string[] | undefined): Record<string, string> =>
    Object.fromEntries((pairs ?? []).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
  const kinds: Kind[] = values.only === 'single' || values.only === 'split' ? [values.only] : ['single', 'split']
  const roots = [
    { name: 'this', root: process.cwd(), env: envOf(values.env) },
    ...(values.vs || values['vs-env'] ? [{ name: 'vs', root: resolve(values.vs ?? '.'), env: envOf(values['vs-env']) }] : [])
  ]
  const results = await run({ kinds, roots, runs: Number(values.runs), profileDir: values.profile, monitor: values.monitor })
  process.stdout.write('\nmedians\n')
  for (const [name, figures] of results) process.stdout.write(`  ${name.padEnd(14)} ${describe(medians(figures))}\n`)
  if (roots.length > 1) {
    process.stdout.write('\nthis / vs, paired run by run (median of the ratios)\n')
    for (const kind of kinds) {
      const ratios = pairedRatios(results.get(`this ${kind}`) ?? [], results.get(`vs ${kind}`) ?? [])
      process.stdout.write(`  ${kind.padEnd(7)} ${FIELDS.map((f) => `${f} ${ratios[f].toFixed(2)}x`).join(', ')}\n`)
    }
  }
}
