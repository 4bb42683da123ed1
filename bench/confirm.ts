import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { demoIds } from '../src/embedded-commerce/demo.ts'
import { startCommerce } from './commerce.ts'
import { closedLoop, drained, MEMBER_ROUND, fmt, phoneOf, scaled, scrape, SECRETS, send, startProvider, startService, TURNS_APPLIED, webhook, type Child } from './lib.ts'

// CPU time per turn of a linked member's round, the service's and the embedded commerce backend's apart, read
// from /proc (utime + stime) around each step of `phones` members typing the same input (64 in flight), and the
// commerce calls per turn as the backend received them. `npx tsx bench/confirm.ts`; BENCH_SCALE scales the
// phones; BENCH_CONFIRM_PROFILE=<dir> runs both processes under --cpu-prof into that directory.

const TICK_US = 10_000

/** Commands a Redis server has run (INFO commandstats, those inside scripts included; INFO itself left out). */
async function commands (redis: Redis): Promise<number> {
  let sum = 0
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') sum += Number(m[2])
  return sum
}

/** CPU time of a process so far, in µs (user + system, at the kernel's 100 Hz tick). */
export function cpuUs (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * TICK_US
}

async function main (): Promise<void> {
  const profile = process.env.BENCH_CONFIRM_PROFILE
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []
  const [redis, commerceRedis] = await Promise.all([startRedisServer(), startRedisServer()])
  const provider = await startProvider()
  const commerce = await startCommerce(commerceRedis.url, nodeArgs)
  const backendRedis = new Redis(commerceRedis.url)
  let service: Child | undefined
  try {
    await commerce.restock(10_000_000)
    service = await startService({ REDIS_URL: redis.url, COMMERCE_URL: commerce.url, CHAT_API_BASE_URL: provider.url, CHAT_SEND_RATE: '1000', REDIS_KEY_PREFIX: 'club:' }, nodeArgs)
    const phones = Array.from({ length: scaled(400, 20) }, (_, i) => phoneOf(3_000_000, i))
    const member = { sub: 'cus_bruno', role: 'member' as const, tenants: ['club-norte'], email: 'bruno@example.com', name: 'Bruno' }
    const token = await signAccessToken(SECRETS.JWT_SECRET, member)
    const links = await Promise.all(phones.map(async (phone) => {
      const res = await send(service?.pool as Child['pool'], { path: '/api/chat/link', body: JSON.stringify({ customerId: member.sub, email: member.email, name: member.name, tenantId: 'club-norte', token }), headers: { 'content-type': 'application/json' } })
      if (res.status !== 201) throw new Error(`link code answered ${res.status}: ${res.body}`)
      return webhook(phone, { text: `LINK-${(JSON.parse(res.body) as { code: string }).code}` })
    }))
    const run = async (s: Child, requests: Array<ReturnType<typeof webhook>>): Promise<{ seconds: number }> => {
      const base = (await scrape(s, [TURNS_APPLIED]))[TURNS_APPLIED] ?? 0
      const started = performance.now()
      await closedLoop(s.pool, requests.length, 64, (i) => requests[i] as ReturnType<typeof webhook>)
      await drained(s, base + requests.length)
      return { seconds: (performance.now() - started) / 1000 }
    }
    await run(service, links)
    const product = demoIds.product('norte', 'picador')
    process.stdout.write(`  ${phones.length} linked members, each step typed by all of them (64 in flight); CPU per turn, sending replies included\n`)
    process.stdout.write(`    ${'kind'.padEnd(30)} ${'service µs'.padStart(10)} ${'backend µs'.padStart(10)} ${'calls'.padStart(6)} ${'backend Redis'.padStart(13)} ${'turns/s'.padStart(8)}\n`)
    const servicePid = service.process.pid as number
    for (const step of MEMBER_ROUND) {
      const requests = phones.map((p) => webhook(p, step.input(product)))
      const before = { service: cpuUs(servicePid), backend: cpuUs(commerce.pid), calls: (await commerce.received()).total, redis: await commands(backendRedis) }
      const { seconds } = await run(service, requests)
      const after = { service: cpuUs(servicePid), backend: cpuUs(commerce.pid), calls: (await commerce.received()).total, redis: await commands(backendRedis) }
      const per = (n: number): string => fmt(n / phones.length).padStart(10)
      process.stdout.write(`    ${step.kind.padEnd(30)} ${per(after.service - before.service)} ${per(after.backend - before.backend)} ${(((after.calls - before.calls) / phones.length).toFixed(1)).padStart(6)} ${((after.redis - before.redis) / phones.length).toFixed(1).padStart(13)} ${fmt(phones.length / seconds).padStart(8)}\n`)
    }
  } finally {
    await service?.stop()
    await commerce.close()
    backendRedis.disconnect()
    await provider.close()
    await Promise.all([redis.stop(), commerceRedis.stop()])
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
