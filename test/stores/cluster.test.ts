import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { describe, expect, inject, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { keys } from '../../src/stores/keys.ts'
import { RedisCropStore } from '../../src/crops/store/redis.ts'
import { buildTestApp, TEST_SECRETS, testRedisCluster } from '../helper.ts'
import { cropRecord } from '../crops/fixtures.ts'

const NODES = '10.0.0.1:7000, redis-b.internal:7001'

describe('REDIS_CLUSTER_NODES', () => {
  it('reads host:port seeds', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: NODES, COMMERCE_URL: 'http://medusa.internal:9000' })
    expect(config.redisClusterNodes).toEqual([{ host: '10.0.0.1', port: 7000 }, { host: 'redis-b.internal', port: 7001 }])
    expect(config.redisUrl).toBeUndefined()
    expect(config.seed).toBe('none')
  })

  it.each([
    [{ REDIS_CLUSTER_NODES: '10.0.0.1', COMMERCE_URL: 'http://m:9000' }, /REDIS_CLUSTER_NODES must list host:port seeds/],
    [{ REDIS_CLUSTER_NODES: 'redis://10.0.0.1:7000', COMMERCE_URL: 'http://m:9000' }, /REDIS_CLUSTER_NODES must list host:port seeds/],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1:70000', COMMERCE_URL: 'http://m:9000' }, /REDIS_CLUSTER_NODES must give ports between 1 and 65535/],
    [{ REDIS_CLUSTER_NODES: ' , ', COMMERCE_URL: 'http://m:9000' }, /REDIS_CLUSTER_NODES must list at least one host:port/],
    [
      { REDIS_CLUSTER_NODES: NODES, REDIS_URL: 'redis://127.0.0.1:6379', COMMERCE_URL: 'http://m:9000' },
      /set REDIS_URL \(one Redis\) or REDIS_CLUSTER_NODES \(a Redis Cluster\), not both/
    ],
    [{ REDIS_CLUSTER_NODES: NODES }, /embedded commerce backend does not run on a Redis Cluster; with REDIS_CLUSTER_NODES set COMMERCE_URL/],
    [{ REDIS_KEY_PREFIX: 'club:{a}:' }, /REDIS_KEY_PREFIX must not contain \{ or \}/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('satisfies production in place of REDIS_URL', () => {
    const config = loadConfig({
      NODE_ENV: 'production', ...TEST_SECRETS, JWT_SECRET: 'another-jwt-secret-0123456789', REDIS_CLUSTER_NODES: NODES, COMMERCE_URL: 'http://m:9000'
    })
    expect(config.redisClusterNodes).toHaveLength(2)
  })

  it('a node list that does not answer fails start-up with one line naming the nodes', async () => {
    const nodes = `127.0.0.1:${await freePort()},127.0.0.1:${await freePort()}`
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...TEST_SECRETS, REDIS_CLUSTER_NODES: nodes, COMMERCE_URL: 'http://127.0.0.1:9' })
    const started = buildApp(config, { logger: false })
    await expect(started).rejects.toThrow(`Redis did not answer at the cluster nodes ${nodes.replace(',', ', ')}`)
  })
})

/** The master's node id and port of a slot, from CLUSTER SLOTS of any member. */
async function ownerOf (node: Redis, slot: number): Promise<{ id: string, port: number }> {
  const range = (await node.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to)
  const master = range?.[2]
  if (!master) throw new Error(`no owner of slot ${slot}`)
  return { id: master[2], port: master[1] }
}

describe('resharding a slot while the service uses it', () => {
  it('follows ASK while the slot migrates and MOVED once it has moved: nothing lost, scripts still run', async () => {
    const r = await testRedisCluster()
    const store = new RedisCropStore(r.redis)
    const tenant = `club-${randomUUID()}`
    const admin = new Redis(`redis://${inject('redisClusterNodes')[0] ?? ''}`)
    const open: Redis[] = [admin]
    try {
      expect(await store.create(cropRecord(tenant, { id: 'crop_1' }), [], 10)).toEqual({ ok: true })
      const slot = Number(await admin.cluster('KEYSLOT', r.prefix + keys.crops.index(tenant)))
      const from = await ownerOf(admin, slot)
      const masters = inject('redisClusterNodes').map((n) => Number(n.split(':')[1]))
      const toPort = masters.find((p) => p !== from.port) as number
      const source = new Redis(from.port, '127.0.0.1')
      const target = new Redis(toPort, '127.0.0.1')
      open.push(source, target)
      const toId = await target.cluster('MYID')
      await target.cluster('SETSLOT', slot, 'IMPORTING', from.id)
      await source.cluster('SETSLOT', slot, 'MIGRATING', toId)
      // the crop record moves first: while the slot migrates, reads of it are answered by ASK to the target
      const recordKey = r.prefix + keys.crops.one(tenant, 'crop_1')
      await source.migrate('127.0.0.1', toPort, '', 0, 5000, 'KEYS', recordKey)
      expect((await store.get(tenant, 'crop_1'))?.id).toBe('crop_1')
      // a script over the record and the slot's not yet moved keys is answered TRYAGAIN until the move ends
      const renamed = store.update(tenant, 'crop_1', (c) => ({ crop: { ...c, name: 'Renamed' }, result: 'renamed' }))
      // the rest of the slot moves, then every member learns the new owner: the old one answers MOVED
      for (;;) {
        const left = await source.cluster('GETKEYSINSLOT', slot, 100) as string[]
        if (left.length === 0) break
        await source.migrate('127.0.0.1', toPort, '', 0, 5000, 'KEYS', ...left)
      }
      for (const port of masters) {
        const member = new Redis(port, '127.0.0.1')
        open.push(member)
        await member.cluster('SETSLOT', slot, 'NODE', toId)
      }
      expect((await ownerOf(admin, slot)).port).toBe(toPort)
      expect(await renamed).toBe('renamed')
      expect(await store.create(cropRecord(tenant, { id: 'crop_2' }), [], 10)).toEqual({ ok: true })
      expect((await store.list(tenant, { limit: 10, offset: 0 })).crops.map((c) => [c.id, c.name])).toEqual([['crop_2', 'Test crop'], ['crop_1', 'Renamed']])
    } finally {
      for (const client of open) client.disconnect()
      await r.cleanup()
    }
  })
})

describe('the request rate limit on the cluster', () => {
  it('counts one client across requests and answers 429 past the limit', async () => {
    const t = await buildTestApp({ store: 'cluster', env: { RATE_LIMIT_MAX: '3' } })
    try {
      const headers = await t.auth('member', 'club-norte', { sub: 'cus_ana' })
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/api/notifications', headers })).statusCode)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await t.close()
    }
  })
})
