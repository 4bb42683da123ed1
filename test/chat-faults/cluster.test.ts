import { randomInt } from 'node:crypto'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shardOf } from '../../src/stores/shards.ts'
import { keys } from '../../src/stores/keys.ts'
import {
  phones, sleep,
  cleanupLogs, figures, load, killInstance, logTail, PREFIX, restartMaster, seedClubs, settled, SHARDS, startAofCluster,
  startCommerceBackend, startInstance, startProvider, startRedis,
  type ClusterProcesses, type Figures, type Instance, type Provider, type RedisProcess, type RedisTarget,
} from './harness.ts'

// The chat pipeline on a 3-master Redis Cluster (AOF, fsync always) under real faults: two service processes
// on the cluster, the embedded commerce backend as a process of its own on one redis-server (it refuses a
// cluster, so the service reaches it through COMMERCE_URL), and a loopback provider taking the replies. For
// each fault: every accepted message applied exactly once, every reply delivered, in order per phone.

const METRICS_TOKEN = 'cluster-suite-metrics-token-0123456789'

describe('chat pipeline on a Redis Cluster under faults (real processes)', { timeout: 60_000 }, () => {
  let cluster: ClusterProcesses
  let commerceRedis: RedisProcess
  let commerce: Instance & { url: string }
  let provider: Provider
  let target: RedisTarget
  let a: Instance | undefined
  let b: Instance | undefined
  const up = (): Instance[] => [a, b].filter((i): i is Instance => i !== undefined && i.child.exitCode === null && i.child.signalCode === null)
  const table: Array<{ row: string } & Figures & { note: string }> = []

  /** Raw (unprefixed) connections to each master, by port, for CLUSTER commands. */
  const admin = new Map<number, Redis>()
  const adminOf = (port: number): Redis => {
    let client = admin.get(port)
    if (!client) {
      client = new Redis(port, '127.0.0.1')
      client.on('error', () => {})
      admin.set(port, client)
    }
    return client
  }
  /** A member that no case kills, to ask about slots. */
  const steady = (): Redis => adminOf(cluster.masters[0]?.port as number)
  /** The slot of a phone's chat: every key of its turns carries the hash tag of its shard. */
  const slotOf = async (phone: string): Promise<number> => await steady().cluster('KEYSLOT', PREFIX + keys.chat.bot.session(shardOf(phone, SHARDS), phone))
  /** The port of the master owning a slot. */
  async function owners (): Promise<(slot: number) => number> {
    const ranges = await steady().cluster('SLOTS')
    return (slot) => ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1] ?? 0
  }
  /** The port of the master owning each phone's chat. */
  async function mastersOf (group: string[]): Promise<Map<string, number>> {
    const ownerOf = await owners()
    return new Map(await Promise.all(group.map(async (phone): Promise<[string, number]> => [phone, ownerOf(await slotOf(phone))])))
  }

  beforeAll(async () => {
    ;[cluster, commerceRedis, provider] = await Promise.all([startAofCluster(), startRedis(), startProvider()])
    commerce = await startCommerceBackend(commerceRedis.url)
    target = { clusterNodes: cluster.nodes, commerceUrl: commerce.url }
    await seedClubs(target)
    ;[a, b] = await Promise.all([startInstance('a', target, provider.url, { METRICS_TOKEN }), startInstance('b', target, provider.url, { METRICS_TOKEN })])
  }, 60_000)

  afterAll(async () => {
    process.stdout.write(
      `\nchat fault suite on a 3-master Redis Cluster\n${[
        'row', 'sent', 'accepted', 'applied', 'delivered', 're-sent (same id)', 'duplicated', 'lost', 'out of order', 'note'
      ].join(' | ')}\n`
    )
    for (const r of table) {
      process.stdout.write(
      `${[r.row, r.sent, r.accepted, r.applied, r.delivered, r.resent, r.duplicated, r.lost, r.outOfOrder, r.note].join(' | ')}\n`
      )
    }
    for (const client of admin.values()) client.disconnect()
    await Promise.all([...up(), ...(commerce ? [commerce] : [])].map(async (i) => await killInstance(i, 'SIGKILL')))
    await provider?.close()
    await Promise.all([cluster?.stop(), commerceRedis?.stop()])
    cleanupLogs()
  })

  async function check (row: string, group: string[], perPhone: number, accepted: Map<string, number>, note = ''): Promise<Figures> {
    await settled(group, perPhone, accepted, provider, 30_000)
    const f = await figures(target, group, perPhone, accepted, provider)
    table.push({ row, ...f, note })
    const logs = up().map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
    expect(f.accepted, logs).toBe(f.sent)
    expect(f.lost, logs).toBe(0)
    expect(f.duplicated, logs).toBe(0)
    expect(f.outOfOrder, logs).toBe(0)
    expect(f.applied).toBe(f.accepted)
    expect(f.delivered).toBe(f.accepted)
    return f
  }

  const delivered = (group: string[]): number => new Set(provider.received.filter((r) => group.includes(r.phone)).map((r) => r.key)).size

  it('both instances are ready on the cluster and reach the commerce backend through COMMERCE_URL', async () => {
    for (const instance of up()) {
      // the per-club detail is the metrics token's (a production instance shows anyone only ready or not)
      const res = await request(`http://127.0.0.1:${instance.port}/ready`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      expect(await res.body.json()).toMatchObject({ status: 'ready', redis: 'up', commerce: { 'club-norte': 'up' } })
    }
  })

  it('traffic from many phones across all masters: every message accepted is applied once and delivered, in order', async () => {
    const group = phones(60)
    const perMaster = new Map<number, number>()
    for (const port of (await mastersOf(group)).values()) perMaster.set(port, (perMaster.get(port) ?? 0) + 1)
    expect([...perMaster.keys()].sort()).toEqual(cluster.nodes.map((n) => Number(n.split(':')[1])).sort())
    const accepted = new Map<string, number>()
    const statuses: number[] = []
    await load(up, group, 8, 50, accepted, statuses)
    await check('60 phones over 3 masters', group, 8, accepted, `phones per master ${[...perMaster.values()].join('/')}`)
    expect(statuses.filter((s) => s !== 200)).toEqual([])
  })

  it('a master killed -9 under load and restarted: nothing lost or applied twice, the other masters\' phones keep being served', async () => {
    const group = phones(45)
    const masterOf = await mastersOf(group)
    const victim = cluster.masters[1] as RedisProcess
    const onVictim = group.filter((p) => masterOf.get(p) === victim.port)
    const others = group.filter((p) => !onVictim.includes(p))
    expect(onVictim.length).toBeGreaterThan(0)
    const accepted = new Map<string, number>()
    const statuses: number[] = []
    const running = load(up, group, 24, 250, accepted, statuses)
    await sleep(1_000)
    const othersAtStart = delivered(others)
    await sleep(2_000)
    const othersBefore2s = delivered(others) - othersAtStart
    await victim.kill()
    const othersAtKill = delivered(others)
    await sleep(2_000)
    const othersFirst2s = delivered(others) - othersAtKill
    // past the node timeout (2 s) the other masters have declared it failed: with full coverage required they
    // would now refuse every command
    await sleep(1_000)
    const othersAtFail = delivered(others)
    const victimsAtFail = delivered(onVictim)
    await sleep(2_000)
    const othersWhileDown = delivered(others) - othersAtFail
    const victimsWhileDown = delivered(onVictim) - victimsAtFail
    await restartMaster(cluster, victim)
    await running
    await check('a master killed -9 for 5 s, restarted', group, 24, accepted,
      `${onVictim.length} phones on it; the ${others.length} others got ${othersBefore2s} replies in the 2 s before it, ${othersFirst2s} in its first 2 s ` +
        `down and ${othersWhileDown} in its last 2 s, its own ${victimsWhileDown}; webhook answers ${[...new Set(statuses)].join('/')}`)
    expect(othersWhileDown).toBeGreaterThan(0)
    expect(victimsWhileDown).toBe(0)
  })

  it('a slot holding chat keys resharded while turns run: no 500 at the webhook, no turn lost', async () => {
    const shard = randomInt(SHARDS)
    const inSlot: string[] = []
    while (inSlot.length < 6) {
      const [phone] = phones(1) as [string]
      if (shardOf(phone, SHARDS) === shard) inSlot.push(phone)
    }
    const group = [...inSlot, ...phones(24)]
    const slot = await slotOf(inSlot[0] as string)
    const fromPort = (await owners())(slot)
    const toPort = cluster.masters.map((m) => m.port).find((p) => p !== fromPort) as number
    const source = adminOf(fromPort)
    const destination = adminOf(toPort)
    const accepted = new Map<string, number>()
    const statuses: number[] = []
    const running = load(up, group, 20, 150, accepted, statuses)
    await sleep(700)
    const started = Date.now()
    const [fromId, toId] = await Promise.all([source.cluster('MYID'), destination.cluster('MYID')])
    await destination.cluster('SETSLOT', slot, 'IMPORTING', fromId)
    await source.cluster('SETSLOT', slot, 'MIGRATING', toId)
    // a few keys at a time, as `redis-cli --cluster reshard` does, while the slot's phones keep taking turns
    let moved = 0
    for (;;) {
      const left = await source.cluster('GETKEYSINSLOT', slot, 5) as string[]
      if (left.length === 0) break
      await source.migrate('127.0.0.1', toPort, '', 0, 5000, 'KEYS', ...left)
      moved += left.length
      await sleep(100)
    }
    // the new owner first, then the old one, then the rest: no member sends a client back where it came from
    for (const port of [toPort, fromPort, ...cluster.masters.map((m) => m.port).filter((p) => p !== toPort && p !== fromPort)]) {
      await adminOf(port).cluster('SETSLOT', slot, 'NODE', toId)
    }
    const endedAt = Date.now()
    const during = (at: number): boolean => at >= started && at <= endedAt
    const repliedDuringMove = provider.received.filter((r) => inSlot.includes(r.phone) && during(r.at)).length
    await running
    const acceptedOfSlot = [...accepted].filter(([id]) => inSlot.some((p) => id.startsWith(`m-${p}-`))).map(([, at]) => at)
    expect((await owners())(slot)).toBe(toPort)
    await check('a slot of 6 phones resharded under load', group, 20, accepted,
      `${moved} keys moved in ${endedAt - started} ms; the slot's phones had ${repliedDuringMove} replies meanwhile; webhook answers ${[
        ...new Set(statuses)
      ].join('/')}`)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(moved).toBeGreaterThan(0)
    // the slot's phones were taking turns before the move and went on after it
    expect(acceptedOfSlot.filter((at) => at < started).length).toBeGreaterThan(0)
    expect(acceptedOfSlot.filter((at) => at > endedAt).length).toBeGreaterThan(0)
  })
})
