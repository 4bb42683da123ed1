import { rmSync } from 'node:fs'
import { setPriority } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import type { Pool } from 'undici'
import { startRedisServer, type RedisServer } from '../scripts/lib/redis-server.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { demoIds } from '../src/embedded-commerce/demo.ts'
import { startCommerce, type Commerce } from './commerce.ts'
import {
  applied, closedLoop, cpuMicros, drained, fmt, openLoop, OUTBOX_PHONES, phoneOf, printTargets, quantile, scaled, SCALE, scrape, SECRETS, send, sleep,
  MEMBER_ROUND, startChild, startProvider, startService, turnsApplied, waitFor, webhook, type Child, type Provider, type Request, type Target,
} from './lib.ts'
import { printTopSelfTime } from './profile.ts'
import { idlePhoneBytes } from './phone-bytes.ts'
import { startRedisProxy, type RedisProxy } from './redis-proxy.ts'

// What members do, through the signed webhook and a loopback provider: unlinked greetings, linking, and linked
// members browsing, choosing, giving a quantity, opening the cart and confirming orders against the embedded
// commerce backend, while staff read the orders and the chat inbox. Figures: acks and each turn kind per
// second as a ratio to a bare Fastify route (the bare route in a process of its own; the service as deployed, a
// web instance taking the webhooks and a worker instance running the turns), the ack p99 at 1,000 msg/s and the
// web instance's CPU per ack; then, on a single instance of its own behind a counting proxy, one input at a time,
// Redis commands and round trips and commerce calls per turn kind, and Redis bytes per idle phone.

interface Member { customerId: string, email: string, name: string, tenantId: string, product: string }

const MEMBERS: Member[] = [
  { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', product: demoIds.product('norte', 'picador') },
  { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-sur', product: demoIds.product('sur', 'papelillos') },
]

/** The worker's `nice` (docs/operations.md): the web instance runs first when both want the cores. */
const WORKER_NICE = 10
const COMMERCE_CALLS = 'club_commerce_request_duration_seconds_count'
const UNLINKED = 'greeting, unlinked'
const LINK = 'link by code'
const KINDS = [UNLINKED, LINK, ...MEMBER_ROUND.map((s) => s.kind)]

const memberOf = (i: number): Member => MEMBERS[i % MEMBERS.length] as Member

async function staffHeaders (tenantId: string): Promise<Record<string, string>> {
  const token = await signAccessToken(SECRETS.JWT_SECRET, {
    sub: 'user_admin_norte', role: 'admin', tenants: [tenantId], email: 'admin@club-norte.test', name: 'Admin Norte'
  })
  return { authorization: `Bearer ${token}`, 'tenant-id': tenantId }
}

const STAFF_READS: Array<{ kind: string, path: string }> = [
  { kind: 'staff: orders list', path: '/api/orders' },
  { kind: 'staff: chat inbox', path: '/api/chat/conversations' },
]

/** Links `phone` to `member` as the club's website and the member do: a link code, then the code in the chat. */
async function linkRequest (pool: Pool, phone: string, member: Member): Promise<Request> {
  const token = await signAccessToken(SECRETS.JWT_SECRET, {
    sub: member.customerId, role: 'member', tenants: [member.tenantId], email: member.email, name: member.name
  })
  const res = await send(pool, {
    path: '/api/chat/link',
    body: JSON.stringify({ customerId: member.customerId, email: member.email, name: member.name, tenantId: member.tenantId, token }),
    headers: { 'content-type': 'application/json' }
  })
  if (res.status !== 201) throw new Error(`link code answered ${res.status}: ${res.body}`)
  return webhook(phone, { text: `LINK-${(JSON.parse(res.body) as { code: string }).code}` })
}

interface Rates {
  bare: number,
  acks: number,
  ackCpuUs: number | undefined,
  p50: number,
  p99: number,
  acksAtRate: number,
  kinds: Map<string, { turns: number, seconds: number }>,
  staff: number[]
}

/**
 * The rates' service as docs/operations.md deploys it: a web instance (CHAT_LANES=off) that takes every webhook and
 * API call, and a worker instance (CHAT_LANES=on) that runs the turns and sends, on the same Redis.
 */
interface Deployment { web: Child, worker: Child }
const both = (d: Deployment): Child[] => [d.web, d.worker]

/** Every phone sends its input; seconds until the service has applied them all (then waits, untimed, for the replies). */
async function timedStep (service: Deployment, phones: readonly string[], make: (phone: string, i: number) => Promise<Request> | Request): Promise<number> {
  const requests = await Promise.all(phones.map(async (p, i) => await make(p, i)))
  const base = await turnsApplied(both(service))
  const started = performance.now()
  await closedLoop(service.web.pool, requests.length, 64, (i) => requests[i] as Request)
  const seconds = (await applied(both(service), base + phones.length) - started) / 1000
  await drained(both(service), base + phones.length)
  return seconds
}

async function measureRates (deployment: Deployment, bare: Child): Promise<Rates> {
  const service = deployment.web
  const barePost = webhook(phoneOf(0, 0), { text: 'hola' })
  await closedLoop(bare.pool, 2_000, 64, () => ({ ...barePost, path: '/bare' }))
  const bareRate = await closedLoop(bare.pool, scaled(20_000, 2_000), 64, () => ({ ...barePost, path: '/bare' }))

  // acks: the webhook alone, 200 unlinked phones (the worker runs behind it)
  const unlinked = Array.from({ length: 200 }, (_, i) => phoneOf(1_000_000, i))
  const ackCount = scaled(5_000, 500)
  // warm: the web instance's first two thousand or so webhooks cost it several times the later ones (code not yet
  // optimised); their turns are drained before the measured loop starts
  const warm = 3_000
  const warmedFrom = await turnsApplied(both(deployment))
  await closedLoop(service.pool, warm, 64, (i) => webhook(unlinked[i % unlinked.length] as string, { text: 'hola' }))
  await drained(both(deployment), warmedFrom + warm)
  const base = warmedFrom + warm
  // signed beforehand, so that the client's own work stays out of the loop
  const ackPosts = Array.from({ length: ackCount }, (_, i) => webhook(unlinked[i % unlinked.length] as string, { text: 'hola' }))
  const cpuBefore = cpuMicros(service)
  const acks = await closedLoop(service.pool, ackCount, 64, (i) => ackPosts[i] as Request)
  const cpuAfter = cpuMicros(service)
  const ackCpuUs = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / ackCount
  await drained(both(deployment), base + ackCount)

  const latencies = await openLoop(service.pool, 1_000, Math.max(1, 5 * SCALE), () =>
    webhook(unlinked[Math.floor(Math.random() * unlinked.length)] as string, { text: 'hola' }))
  await waitFor('the open loop\'s replies', async () => (await scrape(service, [OUTBOX_PHONES]))[OUTBOX_PHONES] === 0)

  const kinds = new Map<string, { turns: number, seconds: number }>(KINDS.map((k) => [k, { turns: 0, seconds: 0 }]))
  const add = (kind: string, turns: number, seconds: number): void => {
    const k = kinds.get(kind) as { turns: number, seconds: number }
    k.turns += turns
    k.seconds += seconds
  }
  // unlinked greetings from phones new to the service
  const greeters = Array.from({ length: scaled(3_000, 300) }, (_, i) => phoneOf(2_000_000, i))
  add(UNLINKED, greeters.length, await timedStep(deployment, greeters, (p) => webhook(p, { text: 'hola' })))

  // linked members: link, then rounds of browsing and ordering, with staff reading orders and the inbox meanwhile
  const members = Array.from({ length: scaled(400, 20) }, (_, i) => phoneOf(3_000_000, i))
  add(LINK, members.length, await timedStep(deployment, members, async (p, i) => await linkRequest(service.pool, p, memberOf(i))))
  const staff: number[] = []
  const mix = { running: true }
  const headers = await staffHeaders('club-norte')
  const reads = (async () => {
    for (let i = 0; mix.running; i++) {
      const read = STAFF_READS[i % STAFF_READS.length] as { path: string }
      const t0 = performance.now()
      const res = await send(service.pool, { method: 'GET', path: read.path, headers })
      if (res.status !== 200) throw new Error(`staff read ${read.path} answered ${res.status}: ${res.body}`)
      staff.push(performance.now() - t0)
      await sleep(50)
    }
  })()
  try {
    for (let round = 0; round < Math.max(1, Math.round(2 * SCALE)); round++) {
      for (const step of MEMBER_ROUND) {
        add(
          step.kind, members.length, await timedStep(deployment, members, (p, i) => webhook(p, step.input(memberOf(i).product)))
        )
      }
    }
  } finally {
    mix.running = false
    await reads
  }
  return {
    bare: bareRate,
    acks,
    ackCpuUs,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    acksAtRate: latencies.length,
    kinds,
    staff: staff.sort((a, b) => a - b)
  }
}

interface Counted {
  inputs: number,
  commands: number,
  roundTripsWebhook: number,
  roundTripsAfter: number,
  replies: number,
  commerce: number,
  commerceCounted: number,
  commercePaths: Map<string, number>,
  repeatedCommerce: number,
  byCommand: Map<string, number>
}

/** Commands the server ran, by name (INFO commandstats; scripts' own calls included). */
async function commandStats (redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats')
  const counts = new Map<string, number>()
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') counts.set(m[1] as string, Number(m[2]))
  return counts
}
const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0)

interface Counting {
  idle: { commands: number, roundTrips: number }
  kinds: Map<string, Counted>
  bytes: { unlinked: Awaited<ReturnType<typeof idlePhoneBytes>>, linked: Awaited<ReturnType<typeof idlePhoneBytes>> }
}

/** One input at a time on a service of its own, behind the counting proxy, on a Redis of its own. */
async function measureCounts (redis: RedisServer, proxy: RedisProxy, service: Child, provider: Provider, commerce: Commerce): Promise<Counting> {
  const direct = new Redis(redis.url)
  try {
    await sleep(1_000)
    const idleStart = { stats: total(await commandStats(direct)), rts: proxy.roundTrips.length, t: performance.now() }
    await sleep(3_000)
    const idleSeconds = (performance.now() - idleStart.t) / 1000
    const idle = {
      commands: (total(await commandStats(direct)) - idleStart.stats) / idleSeconds, roundTrips: (proxy.roundTrips.length - idleStart.rts) / idleSeconds
    }

    const kinds = new Map<string, Counted>()
    const marks = new Map<string, string[]>()
    // the service's own count of its commerce calls, read after each input's Redis figures are taken (a scrape reads Redis)
    const commerceCounted = async (): Promise<number> => (await scrape(service, [COMMERCE_CALLS], true))[COMMERCE_CALLS] ?? 0
    let counted = await commerceCounted()
    const count = async (kind: string, phone: string | undefined, act: () => Promise<void>): Promise<void> => {
      const before = {
        stats: await commandStats(direct),
        rts: proxy.roundTrips.length,
        commerce: (await commerce.received()).total,
        sent: provider.sent.length,
        t: performance.now()
      }
      let acked = performance.now()
      await act().then(() => { acked = performance.now() })
      // done once a reply went out (a turn) and nothing more was sent for 60 ms
      if (phone) await waitFor(`a reply to ${kind}`, async () => provider.sent.length > before.sent)
      let seen = -1
      await waitFor(`${kind} to settle`, async () => {
        const quiet = provider.sent.length === seen
        seen = provider.sent.length
        return quiet
      }, 30_000, 60)
      const after = await commandStats(direct)
      const seconds = (performance.now() - before.t) / 1000
      const c = kinds.get(kind) ??
        {
          inputs: 0,
          commands: 0,
          roundTripsWebhook: 0,
          roundTripsAfter: 0,
          replies: 0,
          commerce: 0,
          commerceCounted: 0,
          commercePaths: new Map<string, number>(),
          repeatedCommerce: 0,
          byCommand: new Map<string, number>()
        }
      const rts = proxy.roundTrips.slice(before.rts)
      const { paths } = await commerce.received(before.commerce)
      c.inputs++
      c.commands += total(after) - total(before.stats) - idle.commands * seconds
      c.roundTripsWebhook += rts.filter((t) => t <= acked).length
      c.roundTripsAfter += rts.filter((t) => t > acked).length - idle.roundTrips * seconds
      c.replies += provider.sent.length - before.sent
      c.commerce += paths.length
      for (const p of paths) {
        // one line per route: ids and the query string left out
        const route = (p.split('?')[0] ?? p).replace(/([a-z]+_)[0-9A-Z]{20,}/g, '$1<id>')
        c.commercePaths.set(route, (c.commercePaths.get(route) ?? 0) + 1)
      }
      c.repeatedCommerce += paths.length - new Set(paths).size
      for (const [name, n] of after) c.byCommand.set(name, (c.byCommand.get(name) ?? 0) + n - (before.stats.get(name) ?? 0))
      const now = await commerceCounted()
      c.commerceCounted += now - counted
      counted = now
      kinds.set(kind, c)
    }
    // the request is made before counting starts: a link code is the club website's call, not the turn's
    const say = async (kind: string, phone: string, make: () => Request | Promise<Request>): Promise<void> => {
      const r = await make()
      await count(kind, phone, async () => {
        const res = await send(service.pool, r)
        if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${res.body}`)
        const ids = marks.get(phone) ?? []
        const m = /"id":"(wamid\.[^"]+)"/.exec(r.body ?? '')
        marks.set(phone, [...ids, ...(m?.[1] ? [m[1]] : []), r.headers['x-idempotency-key'] ?? ''])
      })
    }
    const samples = scaled(5, 3)
    const unlinked = Array.from({ length: samples }, (_, i) => phoneOf(4_000_000, i))
    for (const phone of unlinked) await say(UNLINKED, phone, () => webhook(phone, { text: 'hola' }))
    const linked = Array.from({ length: samples }, (_, i) => phoneOf(5_000_000, i))
    for (const [i, phone] of linked.entries()) await say(LINK, phone, async () => await linkRequest(service.pool, phone, memberOf(i)))
    for (const [i, phone] of linked.entries()) {
      for (const step of MEMBER_ROUND) await say(step.kind, phone, () => webhook(phone, step.input(memberOf(i).product)))
    }
    for (const read of STAFF_READS) {
      const headers = await staffHeaders('club-norte')
      for (let i = 0; i < samples; i++) {
        await count(read.kind, undefined, async () => {
          const res = await send(service.pool, { method: 'GET', path: read.path, headers })
          if (res.status !== 200) throw new Error(`${read.path} answered ${res.status}`)
        })
      }
    }
    const prefix = 'club:'
    const bytes = {
      unlinked: await idlePhoneBytes(direct, prefix, unlinked[0] as string, marks.get(unlinked[0] as string) ?? []),
      linked: await idlePhoneBytes(direct, prefix, linked[0] as string, marks.get(linked[0] as string) ?? []),
    }
    return { idle, kinds, bytes }
  } finally {
    direct.disconnect()
  }
}

/** `profile`: the worker's CPU profile (the turns); `webProfile`: the web instance's (the acks). */
export interface MembersResult { targets: Target[], profile: string | undefined, webProfile: string | undefined }

export async function run (): Promise<MembersResult> {
  const profileDir = process.env.BENCH_PROFILE !== '0' ? join(process.cwd(), 'bench', '.profiles') : undefined
  if (profileDir) rmSync(profileDir, { recursive: true, force: true })
  const [redis, countedRedis, commerceRedis] = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()])
  const provider = await startProvider()
  const commerce = await startCommerce(commerceRedis.url)
  await commerce.restock(10_000_000)
  const proxy = await startRedisProxy({ host: '127.0.0.1', port: Number(new URL(countedRedis.url).port) })
  const common = { COMMERCE_URL: commerce.url, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000', REDIS_KEY_PREFIX: 'club:' }
  const children: Child[] = []
  try {
    const bare = await startChild('bench/bare.ts', {})
    children.push(bare)
    const webProfile = profileDir && join(profileDir, 'web')
    const profiled = (dir: string | undefined): string[] => dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : []
    const web = await startService({ ...common, REDIS_URL: redis.url, CHAT_LANES: 'off' }, profiled(webProfile))
    children.push(web)
    const worker = await startService({ ...common, REDIS_URL: redis.url, CHAT_LANES: 'on' }, profiled(profileDir))
    children.push(worker)
    // as docs/operations.md runs workers on the web instance's machine: below it, so the acks never wait for turns
    setPriority(worker.process.pid as number, WORKER_NICE)
    const rates = await measureRates({ web, worker }, bare)
    provider.reset()
    await Promise.all([web.stop(), worker.stop()])
    const counted = await startService({ ...common, REDIS_URL: proxy.url })
    children.push(counted)
    const counts = await measureCounts(countedRedis, proxy, counted, provider, commerce)
    report(rates, counts)
    return { targets: targets(rates, counts), profile: profileDir, webProfile }
  } finally {
    for (const child of children) await child.stop()
    await provider.close()
    await commerce.close()
    await proxy.close()
    await Promise.all([redis.stop(), countedRedis.stop(), commerceRedis.stop()])
  }
}

const ratio = (rate: number, bare: number): string => `${fmt(rate)}/s (${(rate / bare).toFixed(2)}x bare)`

function report (rates: Rates, counts: Counting): void {
  const lines = [
    '  rates measured on the documented deployment: a web instance (CHAT_LANES=off) taking every webhook and API call,',
    '  a worker instance (CHAT_LANES=on, at nice 10) running the turns and sends, one Redis; turns counted on both instances',
    `  bare Fastify route (own process):  ${fmt(rates.bare)} req/s`,
    `  webhook acks (web instance):       ${ratio(rates.acks, rates.bare)}, ${rates.ackCpuUs === undefined
      ? 'CPU n/a'
      : `${fmt(rates.ackCpuUs)} µs of the web instance's CPU per ack`}`,
    `  ack latency at 1,000 msg/s:        p50 ${fmt(rates.p50)} ms, p99 ${fmt(rates.p99)} ms (${rates.acksAtRate} acks)`,
    '  turns applied per second, by kind (from the first webhook POST until the service counted them applied):',
    ...[...rates.kinds].map(([kind, k]) => `    ${kind.padEnd(30)} ${ratio(k.turns / k.seconds, rates.bare)}  (${k.turns} turns)`),
    `  staff reads during the mix:        ${rates.staff.length} (orders list, chat inbox), p50 ${fmt(quantile(rates.staff, 0.5))} ms, p99 ${fmt(
      quantile(rates.staff, 0.99)
    )} ms`,
    '',
    '  counted one input at a time on a single instance running everything (CHAT_LANES=on), behind the counting proxy:',
    `  idle instance:                     ${fmt(counts.idle.commands)} Redis commands/s, ${fmt(counts.idle.roundTrips)} round trips/s`,
    '  per input, one at a time (idle work subtracted; round trips split at the webhook\'s answer; commerce calls as the',
    '  backend received them, "counted" as the service\'s own histogram counted them):',
    `    ${'kind'.padEnd(
      30
    )} ${'commands'.padStart(
      8
    )} ${'RT webhook'.padStart(
      10
    )} ${'RT after'.padStart(8)} ${'replies'.padStart(7)} ${'commerce'.padStart(8)} ${'counted'.padStart(7)} ${'repeated'.padStart(8)}`,
    ...[...counts.kinds].map(([kind, c]) => {
      const per = (n: number): string => (n / c.inputs).toFixed(1)
      return `    ${kind.padEnd(30)} ${per(c.commands).padStart(8)} ${per(c.roundTripsWebhook).padStart(10)} ${per(c.roundTripsAfter).padStart(8)} ${per(
        c.replies
      ).padStart(7)} ${per(c.commerce).padStart(8)} ${per(c.commerceCounted).padStart(7)} ${per(c.repeatedCommerce).padStart(8)}`
    }),
    '  commands by name, per input:',
    ...[...counts.kinds].map(([kind, c]) =>
      `    ${kind.padEnd(30)} ${[...c.byCommand].filter(([, n]) =>
        n > 0).sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${(n / c.inputs).toFixed(1)}`).join(', ')}`),
    ...['product list', 'confirm the order'].map((kind) => {
      const c = counts.kinds.get(kind)
      const calls = [...(c?.commercePaths ?? [])].map(([path, n]) => `      ${(n / (c?.inputs ?? 1)).toFixed(1)} x ${path}`)
      return [`  commerce calls per input, ${kind}:`, ...calls].join('\n')
    }),
    '',
    ...(['unlinked', 'linked'] as const).map((which) => {
      const b = counts.bytes[which]
      return `  Redis bytes per idle ${which.padEnd(8)} phone: ${b.total} (${b.parts.map((p) => `${p.what} ${p.bytes}`).join(', ')})`
    }),
    '',
  ]
  process.stdout.write(lines.join('\n'))
}

const RT_TURN = 2

function targets (rates: Rates, counts: Counting): Target[] {
  const list: Target[] = [
    { figure: 'webhook acks vs bare', value: `${(rates.acks / rates.bare).toFixed(2)}x`, target: '>= 0.35x', met: rates.acks / rates.bare >= 0.35 },
    { figure: 'ack p99 at 1,000 msg/s', value: `${fmt(rates.p99)} ms`, target: '<= 5 ms', met: rates.p99 <= 5 },
  ]
  // a turn's own cost is held against its floor (bench/confirm.ts), not against a bare route doing one exchange
  for (const [kind, c] of counts.kinds) {
    if (kind.startsWith('staff')) continue
    // what comes after the webhook's answer, less a take and an ack per reply the send lane may spend
    const turn = (c.roundTripsAfter - 2 * c.replies) / c.inputs
    list.push({
      figure: `turn round trips: ${kind}`,
      value: turn.toFixed(1),
      target: `<= ${RT_TURN} (after-ack round trips less 2 per reply sent)`,
      met: turn <= RT_TURN + 0.05
    })
  }
  list.push({ figure: 'idle instance Redis commands', value: `${fmt(counts.idle.commands)}/s`, target: '<= 5/s', met: counts.idle.commands <= 5 })
  const browse = counts.kinds.get('product list')
  if (browse) {
    list.push({
      figure: 'commerce calls of a product list',
      value: (browse.commerce / browse.inputs).toFixed(1),
      target: '<= 1 (mostly 0: catalog cached)',
      met: browse.commerce / browse.inputs < 1
    })
  }
  const confirm = counts.kinds.get('confirm the order')
  if (confirm) {
    list.push({
      figure: 'repeated commerce calls of a confirmation',
      value: (confirm.repeatedCommerce / confirm.inputs).toFixed(1),
      target: '0',
      met: confirm.repeatedCommerce === 0
    })
  }
  list.push({
    figure: 'Redis bytes per idle unlinked phone', value: `${counts.bytes.unlinked.total} B`, target: '<= 512 B', met: counts.bytes.unlinked.total <= 512
  })
  list.push({
    figure: 'Redis bytes per idle linked phone', value: `${counts.bytes.linked.total} B`, target: '<= 1,280 B', met: counts.bytes.linked.total <= 1280
  })
  return list
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run()
  printTargets(result.targets)
  if (result.webProfile) printTopSelfTime(result.webProfile)
  if (result.profile) printTopSelfTime(result.profile)
}
