import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { startRedisServer, type RedisServer } from '../scripts/lib/redis-server.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { demoIds } from '../src/embedded-commerce/demo.ts'
import { startCommerce, type Commerce } from './commerce.ts'
import {
  closedLoop, cpuClock, drained, isDrained, MEMBER_ROUND, fmt, phoneOf, printTargets, scaled, scrape, SECRETS, send, sleep, startChild, startProvider,
  startService, TURNS_APPLIED, waitFor, webhook, type Child, type CpuClock, type Provider, type Request, type Target
} from './lib.ts'
import { busiestProfile, callers, frameName, readProfile, type CpuProfile } from './profile.ts'

// CPU time per turn of each kind, the service's and the embedded commerce backend's apart, read from /proc
// (each thread's time on a core, in ns: lib.ts cpuClock) around each step of `phones` phones typing the same
// input (64 in flight), beside the turn's floor measured in the same run: bench/floor-server.ts doing the same
// HTTP exchanges (the webhook, each reply to the provider, each commerce call) and running as many Redis scripts
// per turn as the service ran (EVALSHA and EVAL in its Redis' INFO commandstats), and nothing else. The ratio
// service / floor is the service's own work per turn. For every kind, the three functions with the most self
// time in the service's CPU profile during that step, per turn (and per commerce call for the kinds making
// them). `npx tsx bench/confirm.ts [--vs DIR]`; BENCH_SCALE scales the phones. With --vs, another checkout's
// service is measured too, its steps in turn with this one's (run()), and the two are printed side by side.

const IN_FLIGHT = 64
/** Phones typing each step: at the quiet machine's pace (about 500 turns a second) the run takes about a minute. */
const PHONES = 1000
/** Replies stopped arriving this long: the step is likely over, and the service is asked whether it is. */
const QUIET_MS = 100
/** Kinds below this many commerce calls per turn count as turns without any (a kept catalog read now and then). */
const NO_CALLS = 0.5
/** A turn without commerce calls costs at most this many times its floor (docs/performance.md). */
const FLOOR_TARGET = 3
/**
 * The provider's pace the service keeps in the bench (CHAT_SEND_RATE: its highest tier), and the floor's paced
 * variant too: a handler posting replies faster would be throttled by the provider (docs/performance.md).
 */
const SEND_RATE = 1000
/**
 * Each kind's floor is measured this many times over, in rounds, and its median kept: one reading of the same posts
 * moved by up to 1.9x from one kind to another doing the same work (111 to 211 µs), the ratio's largest noise.
 */
const FLOOR_ROUNDS = 3

/** Write system calls of a process so far (/proc/<pid>/io): each socket write (a Redis batch, an HTTP message) is one. */
const writes = (pid: number): number => Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1])

/**
 * Time a process's threads waited for a core while ready to run, so far, in µs (/proc/<pid>/task/<tid>/schedstat, the
 * second field, ns). A CPU profile's samples are wall time: a thread put off its core inside a call (a socket write
 * that wakes Redis, on a loaded machine) has that wait counted to the call. This tells how much of it there was.
 */
function waitedUs (pid: number): number {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1])
  return ns / 1000
}

/** Commands a Redis server has run by name (INFO commandstats, those inside scripts included; INFO left out). */
async function commandStats (redis: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') counts.set(m[1] as string, Number(m[2]))
  return counts
}
const sum = (m: Map<string, number>, names?: readonly string[]): number => [...m].reduce((a, [name, n]) => names && !names.includes(name) ? a : a + n, 0)
const SCRIPTS = ['evalsha', 'eval']

/** The monotonic clock the CPU profile's sample times are on, in µs. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n)

interface Step { kind: string, requests: Request[] }
export interface TurnCost {
  kind: string
  turns: number
  serviceUs: number
  /** The service's write system calls per turn. */
  writes: number
  /** µs per turn the service's threads waited for a core while ready to run (waitedUs). */
  waitedUs: number
  /** µs per turn of the service's CPU profile not idle, in wall time (the CPU and the waits for a core within it). */
  profiledWallUs?: number
  /** Asked too early whether the step was over (lib.ts isDrained): each ask, two /metrics scrapes, costs the step its CPU. */
  early: number
  backendUs: number
  calls: number
  scripts: number
  backendCommands: number
  replies: number
  rate: number
  window: [number, number]
  /**
   * The floor's CPU per turn, its replies kept to the provider's pace as the service's are: the median of its
   * FLOOR_ROUNDS readings, and their least and greatest.
   */
  floorUs?: number
  floorSpread?: [number, number]
  /** The floor's write system calls per turn (its Redis client batches the scripts of turns that run together). */
  floorWrites?: number
  /** The same floor with its replies posted as soon as they can be (the median), whatever the provider's pace. */
  unpacedFloorUs?: number
  /** The service's largest self-time costs during the step, in µs of CPU per turn. */
  costs?: Array<{ where: string, usPerTurn: number, callers: Array<{ caller: string, usPerTurn: number }> }>
}

/** `count` spread over `n` turns as evenly as whole numbers allow: the i-th turn's share. */
const share = (count: number, n: number, i: number): number => Math.floor(count * (i + 1) / n) - Math.floor(count * i / n)

/**
 * The end of a step, found without costing the process measured any CPU inside it: once the replies at the
 * loopback provider (in this process) have stopped for QUIET_MS, the counters are read (`reading`) and only then
 * the process is asked whether the step is over (`over`; the service's answer is two /metrics scrapes, some 2 ms
 * of its CPU each, as much as 5 µs a turn). An ask answered "not yet" is counted (`early`): its cost is the step's.
 */
async function stepEnd<R> (provider: Provider, what: string, over: () => Promise<boolean>, reading: () => Promise<R>): Promise<{ after: R, early: number }> {
  const deadline = Date.now() + 300_000
  for (let early = 0; ; early++) {
    for (let seen = -1; provider.sent.length !== seen;) {
      seen = provider.sent.length
      await sleep(QUIET_MS)
    }
    const after = await reading()
    if (await over()) return { after, early }
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`)
  }
}

/**
 * Where the service's CPU went between `from` and `to` (µs, the profile's clock): each function's share of the
 * samples, with the callers outside Node's internals it came through (a socket write's: the Redis client, undici,
 * the HTTP answer). A sample's time is the wall time since the one before, and on a loaded machine a thread put
 * off its core lands its next sample where it resumed (inside the socket write that woke Redis, often): those
 * samples, taken after a gap of more than twice the profile's median interval, are left out, so that the shares
 * are of the time the process ran. `wallUs` is the samples' whole time, waits for a core included.
 */
function selfTimeBetween (profile: CpuProfile, from: number, to: number): { share: Map<string, { share: number, by: Map<string, number> }>, wallUs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const callerOf = callers(profile)
  const gap = 2 * ([...profile.timeDeltas].sort((a, b) => a - b)[Math.floor(profile.timeDeltas.length / 2)] ?? 0)
  const counts = new Map<string, { n: number, by: Map<string, number> }>()
  let at = profile.startTime
  let wallUs = 0
  let steady = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    const node = byId.get(id)
    if (!node || at < from || at > to || node.callFrame.functionName === '(idle)') return
    wallUs += delta
    if (delta > gap) return
    steady++
    const where = frameName(node)
    const entry = counts.get(where) ?? { n: 0, by: new Map<string, number>() }
    entry.n++
    const caller = callerOf.get(id) ?? ''
    entry.by.set(caller, (entry.by.get(caller) ?? 0) + 1)
    counts.set(where, entry)
  })
  const share = new Map([...counts].map(([where, { n, by }]) => [where, { share: n / steady, by: new Map([...by].map(([c, k]) => [c, k / steady])) }]))
  return { share, wallUs }
}

/** One service measured: its process, its Redis, its CPU profile, the steps its phones type and what each cost. */
interface Measured {
  name: string
  service: Child
  redis: RedisServer
  client: Redis
  cpu: CpuClock
  profileDir: string
  steps: Step[]
  /** The untimed round that warms the process, run before any step is measured (warm). */
  warmUp: Step[]
  costs: TurnCost[]
}

interface Shared { provider: Provider, commerce: Commerce, backendCpu: CpuClock, backendRedis: Redis }

/** Link codes for `phones` from the club website's route (untimed): the webhooks that type them, one a phone. */
async function linkInputs (name: string, service: Child, phones: readonly string[]): Promise<Request[]> {
  const member = { sub: 'cus_bruno', role: 'member' as const, tenants: ['club-norte'], email: 'bruno@example.com', name: 'Bruno' }
  const token = await signAccessToken(SECRETS.JWT_SECRET, member)
  return await Promise.all(phones.map(async (phone) => {
    const res = await send(service.pool, {
      path: '/api/chat/link',
      body: JSON.stringify({ customerId: member.sub, email: member.email, name: member.name, tenantId: 'club-norte', token }),
      headers: { 'content-type': 'application/json' }
    })
    if (res.status !== 201) throw new Error(`${name}: link code answered ${res.status}: ${res.body}`)
    return webhook(phone, { text: `LINK-${(JSON.parse(res.body) as { code: string }).code}` })
  }))
}

/** Every kind in order: strangers greeting, then `phones` linking and going through a member's round. */
function round (strangers: readonly string[], phones: readonly string[], links: Request[]): Step[] {
  const product = demoIds.product('norte', 'picador')
  return [
    { kind: 'greeting, unlinked', requests: strangers.map((phone) => webhook(phone, { text: 'hola' })) },
    { kind: 'link by code', requests: links },
    ...MEMBER_ROUND.map((step) => ({ kind: step.kind, requests: phones.map((p) => webhook(p, step.input(product))) })),
  ]
}

/**
 * A service of the checkout at `root` started on a Redis of its own, with the bench's provider and backend; its
 * phones linked (the link codes are the club website's calls, made before any step is counted) and a round to warm
 * it made (run by warm, untimed: a process's first thousand or so turns of a kind cost it several times the later
 * ones, code not yet optimised): other phones go through every kind once first, so that no kind is measured on code the ones before
 * it did not run (a product list measured cold read 1.5x its warm cost). `at` keeps two services' phones apart.
 */
async function startMeasured (name: string, root: string, at: number, { provider, commerce }: Shared): Promise<Measured> {
  const profileDir = mkdtempSync(join(tmpdir(), 'club-bench-turns-'))
  const redis = await startRedisServer()
  const service = await startService(
    { REDIS_URL: redis.url, COMMERCE_URL: commerce.url, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: String(SEND_RATE), REDIS_KEY_PREFIX: 'club:' },
    ['--cpu-prof', '--cpu-prof-dir', profileDir], root
  )
  const measured = { name, service, redis, client: new Redis(redis.url), cpu: cpuClock(service.process.pid as number), profileDir, costs: [] }
  const n = scaled(PHONES, 20)
  const phonesFrom = (base: number): string[] => Array.from({ length: n }, (_, i) => phoneOf(base, i))
  const [phones, warmPhones] = [phonesFrom(at), phonesFrom(at + 500_000)]
  const [links, warmLinks] = [await linkInputs(name, service, phones), await linkInputs(name, service, warmPhones)]
  return { ...measured, steps: round(phonesFrom(at + 1_000_000), phones, links), warmUp: round(phonesFrom(at + 1_500_000), warmPhones, warmLinks) }
}

/**
 * Warms the services (untimed, every kind once), kind by kind in turn (this, vs, this, vs ...): one warmed whole
 * before the other sat idle through the other's warm-up, and V8 gives an idle process's young generation back, so
 * its first step measured paid for growing it again (this/vs 1.33 to 1.42 on the unlinked greeting of two builds
 * of the same code, 0.84 to 1.17 on the other kinds).
 */
async function warm (measured: readonly Measured[]): Promise<void> {
  const turns = new Map<Measured, number>()
  for (let k = 0; k < (measured[0]?.warmUp.length ?? 0); k++) {
    for (const m of measured) {
      const { requests } = m.warmUp[k] as Step
      await closedLoop(m.service.pool, requests.length, IN_FLIGHT, (i) => requests[i] as Request)
      turns.set(m, (turns.get(m) ?? 0) + requests.length)
      await drained(m.service, turns.get(m) ?? 0)
    }
  }
}

/** One step typed by all of a service's phones: its counters read before and after (stepEnd). */
async function measureStep (m: Measured, step: Step, { provider, commerce, backendCpu, backendRedis }: Shared): Promise<TurnCost> {
  const pid = m.service.process.pid as number
  const reading = async () => ({
    service: m.cpu.read(),
    writes: writes(pid),
    waited: waitedUs(pid),
    backend: backendCpu.read(),
    calls: (await commerce.received()).total,
    scripts: sum(await commandStats(m.client), SCRIPTS),
    backendCommands: sum(await commandStats(backendRedis)),
    replies: provider.sent.length,
    at: nowUs()
  })
  const n = step.requests.length
  const base = (await scrape(m.service, [TURNS_APPLIED]))[TURNS_APPLIED] ?? 0
  const before = await reading()
  const started = performance.now()
  await closedLoop(m.service.pool, n, IN_FLIGHT, (i) => step.requests[i] as Request)
  const { after, early } = await stepEnd(provider, `${m.name}'s ${step.kind} turns`, async () => await isDrained(m.service, base + n), reading)
  const seconds = (performance.now() - started) / 1000
  return {
    kind: step.kind,
    turns: n,
    serviceUs: (after.service - before.service) / n,
    writes: (after.writes - before.writes) / n,
    waitedUs: (after.waited - before.waited) / n,
    early,
    backendUs: (after.backend - before.backend) / n,
    calls: (after.calls - before.calls) / n,
    scripts: (after.scripts - before.scripts) / n,
    backendCommands: (after.backendCommands - before.backendCommands) / n,
    replies: (after.replies - before.replies) / n,
    rate: n / seconds,
    window: [before.at, after.at],
  }
}

/** What the service's own CPU went to in each step, per turn, from its CPU profile (read once it stopped). */
function profiled (m: Measured): void {
  const profile = readProfile(busiestProfile(m.profileDir))
  for (const cost of m.costs) {
    const { share, wallUs } = selfTimeBetween(profile, cost.window[0], cost.window[1])
    cost.profiledWallUs = wallUs / cost.turns
    // each function's share of the samples taken while the process ran, of the CPU /proc counted; its callers
    // that brought a tenth of it or more
    cost.costs = [...share].sort((a, b) => b[1].share - a[1].share).slice(0, 3).map(([where, { share: s, by }]) => ({
      where,
      usPerTurn: s * cost.serviceUs,
      callers: [...by].filter(([, cs]) => cs >= s / 10).sort((a, b) => b[1] - a[1]).slice(0, 3)
        .map(([caller, cs]) => ({ caller, usPerTurn: cs * cost.serviceUs })),
    }))
  }
}

/**
 * Each kind's CPU per turn of this checkout's service beside its floor; with `vs` (another checkout's root, with
 * its own node_modules: a `git worktree` at another commit), that checkout's service too, its steps run in turn
 * with this one's (this, vs, this, vs ...) on the same backend and provider, each beside its own floor.
 */
export async function run (vs?: string): Promise<{ costs: TurnCost[], targets: Target[] }> {
  const [commerceRedis, floorRedis] = await Promise.all([startRedisServer(), startRedisServer()])
  const provider = await startProvider()
  const commerce = await startCommerce(commerceRedis.url)
  const shared: Shared = { provider, commerce, backendCpu: cpuClock(commerce.pid), backendRedis: new Redis(commerceRedis.url) }
  const measured: Measured[] = []
  let floor: Child | undefined
  try {
    await commerce.restock(10_000_000)
    measured.push(await startMeasured('this', process.cwd(), 3_000_000, shared))
    if (vs) measured.push(await startMeasured('vs', resolve(vs), 6_000_000, shared))
    await warm(measured)
    const kinds = (measured[0] as Measured).steps.length
    for (let k = 0; k < kinds; k++) {
      for (const m of measured) m.costs.push(await measureStep(m, m.steps[k] as Step, shared))
    }
    for (const m of measured) await m.service.stop()

    // the floor of each kind: the same exchanges and scripts, counted above, at the same concurrency
    floor = await startChild('bench/floor-server.ts', { REDIS_URL: floorRedis.url, PROVIDER_URL: provider.url, COMMERCE_URL: commerce.url })
    const { pool } = floor
    const floorPid = floor.process.pid as number
    const floorCpu = cpuClock(floorPid)
    const floorDone = async (): Promise<number> =>
      (JSON.parse((await send(pool, { method: 'GET', path: '/floor/done', headers: {} })).body) as { done: number }).done
    const postsOf = (m: Measured, k: number, rate: number): Request[] => {
      const cost = m.costs[k] as TurnCost
      const requests = (m.steps[k] as Step).requests
      const n = requests.length
      const total = { scripts: Math.round(cost.scripts * n), replies: Math.round(cost.replies * n), calls: Math.round(cost.calls * n) }
      return requests.map((r, i) => ({
        ...r, headers: { ...r.headers, 'x-floor': `${share(total.scripts, n, i)},${share(total.replies, n, i)},${share(total.calls, n, i)},${rate}` }
      }))
    }
    // warmed as the services were: every kind once, untimed, before the first is measured
    let warmed = 0
    for (let k = 0; k < kinds; k++) {
      const posts = postsOf(measured[0] as Measured, k, SEND_RATE)
      await closedLoop(pool, posts.length, IN_FLIGHT, (i) => posts[i] as Request)
      warmed += posts.length
      await waitFor('the floor\'s warm-up', async () => await floorDone() >= warmed, 120_000, 50)
    }
    // in turn as the services' steps were (this, vs, this, vs ...), paced and not, FLOOR_ROUNDS times over: each
    // kind's median of each
    type Reading = { us: number, writes: number }
    const readings = new Map<TurnCost, { paced: Reading[], unpaced: Reading[] }>()
    const median = (taken: readonly Reading[]): Reading => [...taken].sort((a, b) => a.us - b.us)[Math.floor(taken.length / 2)] as Reading
    for (let round = 0; round < FLOOR_ROUNDS; round++) {
      for (let k = 0; k < kinds; k++) {
        for (const m of measured) {
          const cost = m.costs[k] as TurnCost
          const taken = readings.get(cost) ?? { paced: [], unpaced: [] }
          readings.set(cost, taken)
          for (const rate of [SEND_RATE, 0]) {
            const posts = postsOf(m, k, rate)
            const n = posts.length
            const done = await floorDone()
            const before = { cpu: floorCpu.read(), writes: writes(floorPid) }
            await closedLoop(pool, n, IN_FLIGHT, (i) => posts[i] as Request)
            const end = await stepEnd(provider, `the floor's ${cost.kind} turns`, async () => await floorDone() >= done + n,
              async () => ({ cpu: floorCpu.read(), writes: writes(floorPid) }))
            taken[rate > 0 ? 'paced' : 'unpaced'].push({ us: (end.after.cpu - before.cpu) / n, writes: (end.after.writes - before.writes) / n })
          }
        }
      }
    }
    for (const [cost, { paced, unpaced }] of readings) {
      const mid = median(paced)
      cost.floorUs = mid.us
      cost.floorWrites = mid.writes
      cost.floorSpread = [Math.min(...paced.map((t) => t.us)), Math.max(...paced.map((t) => t.us))]
      cost.unpacedFloorUs = median(unpaced).us
    }
    const exited = [...measured.map((m) => m.cpu), shared.backendCpu, floorCpu].reduce((sum, clock) => sum + clock.exited(), 0)
    if (exited > 0) process.stdout.write(`  ${exited} threads of the processes measured exited: their last moments are not counted\n`)
    profiled(measured[0] as Measured)
  } finally {
    await floor?.stop()
    for (const m of measured) {
      await m.service.stop()
      m.client.disconnect()
      await m.redis.stop()
      rmSync(m.profileDir, { recursive: true, force: true })
    }
    await commerce.close()
    shared.backendRedis.disconnect()
    await provider.close()
    await Promise.all([commerceRedis.stop(), floorRedis.stop()])
  }
  const costs = (measured[0] as Measured).costs
  report(costs)
  if (measured[1]) paired(costs, measured[1].costs)
  return { costs, targets: targets(costs) }
}

/** This checkout's CPU per turn against the other's, kind by kind (one pair each), and each one's floor ratio. */
function paired (these: readonly TurnCost[], others: readonly TurnCost[]): void {
  const ratio = (c: TurnCost): string => `${(c.serviceUs / (c.floorUs ?? NaN)).toFixed(1)}x`
  process.stdout.write([
    '  this / vs: the service\'s CPU per turn of each kind, the two run in turn (this, vs) on the same backend, each beside its own floor',
    `    ${'kind'.padEnd(30)} ${'this'.padStart(6)} ${'vs'.padStart(6)} ${'this/vs'.padStart(8)} ${'floor ratio: this'.padStart(18)} ${'vs'.padStart(6)}`,
    ...these.map((c, i) => {
      const o = others[i] as TurnCost
      return `    ${c.kind.padEnd(30)} ${fmt(c.serviceUs).padStart(6)} ${fmt(o.serviceUs).padStart(6)} ${(c.serviceUs / o.serviceUs).toFixed(2).padStart(8)} ` +
        `${ratio(c).padStart(18)} ${ratio(o).padStart(6)}`
    }),
    '',
  ].join('\n'))
}

const COLUMNS: ReadonlyArray<[name: string, width: number, value: (c: TurnCost) => string]> = [
  ['service', 8, (c) => fmt(c.serviceUs)],
  ['floor', 6, (c) => fmt(c.floorUs ?? NaN)],
  ['ratio', 6, (c) => `${(c.serviceUs / (c.floorUs ?? NaN)).toFixed(1)}x`],
  ['floor range', 11, (c) => c.floorSpread ? c.floorSpread.map(fmt).join('-') : ''],
  ['unpaced', 8, (c) => fmt(c.unpacedFloorUs ?? NaN)],
  ['ratio', 6, (c) => `${(c.serviceUs / (c.unpacedFloorUs ?? NaN)).toFixed(1)}x`],
  ['writes', 6, (c) => c.writes.toFixed(1)],
  ['floor', 6, (c) => (c.floorWrites ?? NaN).toFixed(1)],
  ['waited', 7, (c) => fmt(c.waitedUs)],
  ['backend', 8, (c) => fmt(c.backendUs)],
  ['calls', 6, (c) => c.calls.toFixed(1)],
  ['scripts', 8, (c) => c.scripts.toFixed(1)],
  ['replies', 8, (c) => c.replies.toFixed(1)],
  ['backend Redis', 13, (c) => c.backendCommands.toFixed(1)],
  ['turns/s', 8, (c) => fmt(c.rate)],
]

function report (costs: readonly TurnCost[]): void {
  const n = costs[0]?.turns ?? 0
  const early = costs.filter((c) => c.early > 0).map((c) => `${c.kind} ${c.early}`)
  const lines = [
    `  ${n} phones, each step typed by all of them (${IN_FLIGHT} in flight); CPU µs per turn (ns clock), sending replies included; the floor does the`,
    `  same HTTP exchanges and as many Redis scripts (bench/floor-server.ts), its replies kept to the provider's pace (${SEND_RATE} a second) as the`,
    `  service's are, the median of ${FLOOR_ROUNDS} rounds (floor range: their least and greatest); unpaced: the same floor posting its replies at once;`,
    '  writes: the service\'s write system calls per turn, and the floor\'s;',
    '  waited: µs per turn its threads were ready to run and waited for a core (/proc schedstat: the machine\'s load)',
    `    ${'kind'.padEnd(30)} ${COLUMNS.map(([name, width]) => name.padStart(width)).join(' ')}`,
    ...costs.map((c) => `    ${c.kind.padEnd(30)} ${COLUMNS.map(([, width, value]) => value(c).padStart(width)).join(' ')}`),
    ...early.length > 0 ? [`  asked too early whether the step was over (its two /metrics scrapes counted in the step): ${early.join(', ')}`] : [],
    '  the service\'s three largest costs in each kind, µs of its CPU per turn (per commerce call too, where it makes them):',
    '  its CPU shared out as the profile\'s samples taken while it ran; under each, the callers that brought a tenth of it or more',
    ...costs.filter((c) => c.costs).flatMap((c) => [
      `    ${c.kind}: the profile's wall time ${fmt(c.profiledWallUs ?? NaN)} µs a turn, waits for a core included` +
        (c.calls >= NO_CALLS ? `; ${c.calls.toFixed(1)} commerce calls a turn` : ''),
      ...(c.costs ?? []).flatMap((x) => [
        `      ${fmt(x.usPerTurn).padStart(7)}${c.calls >= NO_CALLS ? ` (${fmt(x.usPerTurn / c.calls).padStart(6)} a call)` : ''}  ${x.where}`,
        ...x.callers.map((by) => `        ${fmt(by.usPerTurn).padStart(7)}  from ${by.caller || '(no caller of ours)'}`),
      ]),
    ]),
    '',
  ]
  process.stdout.write(lines.join('\n'))
}

function targets (costs: readonly TurnCost[]): Target[] {
  return costs.filter((c) => c.calls < NO_CALLS).map((c) => {
    const ratio = c.serviceUs / (c.floorUs ?? NaN)
    return { figure: `turn CPU vs its floor: ${c.kind}`, value: `${ratio.toFixed(1)}x`, target: `<= ${FLOOR_TARGET}x`, met: ratio <= FLOOR_TARGET }
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { vs: { type: 'string' } } })
  const result = await run(values.vs)
  printTargets(result.targets)
}
