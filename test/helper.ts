import { randomUUID } from 'node:crypto'
import type { Writable } from 'node:stream'
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, inject } from 'vitest'
import { deleteKeysWithPrefix } from '../scripts/lib/redis-server.ts'
import { deleteClusterKeysWithPrefix, toNode } from '../scripts/lib/redis-cluster.ts'
import { createRedisCluster } from '../src/plugins/redis.ts'
import { type RedisClient } from '../src/stores/redis-client.ts'
import { buildApp, type BuiltApp } from '../src/app.ts'
import { loadConfig, type Config } from '../src/config.ts'
import { loggerOptions } from '../src/logger.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { type Role } from '../src/tenants/roles.ts'
import type { ChatPluginOptions } from '../src/chat/index.ts'
import { signWebhookBody } from '../src/chat/signature.ts'

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef',
  CRON_API_SECRET: 'test-cron-secret-0123456789abcdef',
  CHAT_WEBHOOK_SECRET: 'test-webhook-secret-0123456789abcdef',
} as const

/** A client on the test redis-server under a key prefix of its own, so parallel test files never meet. */
export async function testRedis (): Promise<{ redis: Redis, prefix: string, cleanup: () => Promise<void> }> {
  const prefix = `test:${randomUUID()}:`
  const url = inject('redisUrl')
  const redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 2 })
  const cleanup = async (): Promise<void> => {
    await deleteKeysWithPrefix(url, prefix)
    redis.disconnect()
  }
  return { redis, prefix, cleanup }
}

/** The same on the test Redis Cluster, with the client the service opens for REDIS_CLUSTER_NODES. */
export async function testRedisCluster (): Promise<{ redis: Cluster, prefix: string, cleanup: () => Promise<void> }> {
  const prefix = `test:${randomUUID()}:`
  const masters = inject('redisClusterNodes')
  const redis = createRedisCluster(masters.map(toNode), prefix)
  await redis.connect()
  const cleanup = async (): Promise<void> => {
    await deleteClusterKeysWithPrefix(masters, prefix)
    redis.disconnect()
  }
  return { redis, prefix, cleanup }
}

export type StoreKind = 'redis' | 'cluster' | 'memory'

/** A client of the kind a contract suite runs on (none for memory). */
export async function storeRedis (kind: StoreKind): Promise<{ redis: RedisClient, prefix: string, cleanup: () => Promise<void> } | undefined> {
  if (kind === 'memory') return undefined
  return kind === 'cluster' ? await testRedisCluster() : await testRedis()
}

/** The store a contract suite of `kind` runs on: made before its cases, its Redis cleaned after them. */
export function contractStore<T> (kind: StoreKind, create: (redis: RedisClient | null) => T): () => T {
  let store: T | undefined
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    const r = await storeRedis(kind)
    store = create(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })
  return () => {
    if (store === undefined) throw new Error('the contract store is made in beforeAll')
    return store
  }
}

export interface TestApp {
  app: BuiltApp
  config: Config
  redis: RedisClient | null
  /** A signed access token of ours. */
  token: (role: Role, tenants?: string[], extra?: { sub?: string, email?: string, name?: string, expiresIn?: number }) => Promise<string>
  /** Headers for an authenticated call in a tenant. */
  auth: (role: Role, tenant?: string, extra?: { sub?: string, email?: string, name?: string }) => Promise<Record<string, string>>
  close: () => Promise<void>
}

// On the cluster the embedded commerce backend is refused: an address where nothing answers stands in for Medusa.
const NO_COMMERCE = 'http://127.0.0.1:9'

/**
 * Builds the whole app as production does, on a real Redis (default), the test Redis Cluster or the in-memory
 * stores, with demo data loaded. `env` overrides the environment.
 */
export async function buildTestApp (
  options: { store?: StoreKind, env?: Record<string, string>, ready?: boolean, chat?: ChatPluginOptions, logTo?: Writable, logLevel?: string } = {}
): Promise<TestApp> {
  const store = options.store ?? 'redis'
  const r = await storeRedis(store)
  const target = store === 'cluster'
    ? { REDIS_CLUSTER_NODES: inject('redisClusterNodes').join(','), COMMERCE_URL: NO_COMMERCE }
    : { REDIS_URL: inject('redisUrl') }
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SEED: 'demo',
    ...TEST_SECRETS,
    ...(r ? { ...target, REDIS_KEY_PREFIX: r.prefix } : {}),
    ...options.env,
  })
  // `logTo` captures every log line, at trace (or `logLevel`), through the production logger options (redaction included).
  const logger = options.logTo ? { ...loggerOptions(options.logLevel ?? 'trace'), stream: options.logTo } : false
  const app = await buildApp(config, { redis: r?.redis, logger, chat: options.chat })
  if (options.ready !== false) await app.ready()
  const token: TestApp['token'] = async (role, tenants = ['club-norte'], extra = {}) => await signAccessToken(config.jwtSecret, {
    sub: extra.sub ?? `test-${role}`,
    role,
    tenants,
    email: extra.email ?? `${role}@test.example`,
    name: extra.name ?? `Test ${role}`,
  }, extra.expiresIn ?? 3600)
  return {
    app,
    config,
    redis: r?.redis ?? null,
    token,
    auth: async (role, tenant = 'club-norte', extra) => ({ authorization: `Bearer ${await token(role, [tenant], extra)}`, 'tenant-id': tenant }),
    close: async () => {
      await app.close()
      await r?.cleanup()
    },
  }
}

/** An inject request for a route signed like the messaging provider signs (webhook, login form endpoint). */
export function signedPost (url: string, body: unknown, secret: string = TEST_SECRETS.CHAT_WEBHOOK_SECRET) {
  const payload = JSON.stringify(body)
  return { method: 'POST' as const, url, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(secret, payload) }, payload }
}
