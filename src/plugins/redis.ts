import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Cluster, Redis } from 'ioredis'
import { ConfigError } from '../config.ts'
import { BatchingRedis, type RedisClient } from '../stores/redis-client.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared Redis client, or null when the service runs on its embedded in-memory stores. */
    redis: RedisClient | null
  }
}

export interface RedisNode { host: string, port: number }

interface RedisPluginOptions {
  url: string | undefined
  /** Seeds of a Redis Cluster: used instead of `url` when given. */
  clusterNodes?: readonly RedisNode[] | undefined
  keyPrefix: string
  /** A client made by the caller (tests): used as is and not closed here. */
  client?: RedisClient
}

const CONNECT_TIMEOUT_MS = 5_000
const retryStrategy = (times: number): number => Math.min(times * 200, 2_000)

/**
 * Opens a client the way every part of the service wants it: fail fast while disconnected, never queue forever.
 * Commands issued in the same tick (many webhooks and turns in flight) share one socket write, in the order issued
 * (BatchingRedis): the bench's profile found one write per command the largest single cost.
 */
export function createRedis (url: string, keyPrefix: string): Redis {
  return new BatchingRedis(url, {
    keyPrefix,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy,
  })
}

/**
 * The same for a Redis Cluster. ioredis follows MOVED and ASK answers (a slot moved or moving during
 * resharding) by itself, up to `maxRedirections`, and refreshes its slot map. Sharded pub/sub (SSUBSCRIBE)
 * needs a subscriber per shard, which `shardedSubscribers` opens. No auto-pipelining here: ioredis does not
 * retry a batch answered TRYAGAIN while a slot migrates, so the webhook answered 503 during a reshard
 * (test/chat-faults/cluster.test.ts).
 */
export function createRedisCluster (nodes: readonly RedisNode[], keyPrefix: string): Cluster {
  return new Cluster(nodes.map((n) => ({ ...n })), {
    keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: true,
    // While a slot migrates, a script over keys of it that sit on both nodes is answered TRYAGAIN, retried
    // every 100 ms (retryDelayOnTryAgain) within this budget: 16 (the default) gave up after about a second
    // and the webhook answered 503; 64 rides through a slot moved over a few seconds.
    maxRedirections: 64,
    // The same budget bounds the retries of a command whose master is down (no replica to take over): 10 ms
    // apart they give up in under a second, so work for the dead master's keys fails fast and does not hold
    // the chat lanes' slots that the other masters' phones need (100 ms apart: about 4 s per command).
    retryDelayOnFailover: 10,
    shardedSubscribers: true,
    clusterRetryStrategy: (times) => times > 3 ? null : retryStrategy(times),
    redisOptions: { maxRetriesPerRequest: 2, connectTimeout: CONNECT_TIMEOUT_MS },
  })
}

const describeNodes = (nodes: readonly RedisNode[]): string => nodes.map((n) => `${n.host}:${n.port}`).join(', ')

/** Connects, or throws one clear line naming what did not answer (start-up must not hang or retry forever). */
async function connectRedis (client: RedisClient, target: string): Promise<void> {
  // the connection's own errors while trying are its reason, said once in that line (not logged with a stack)
  let reason: Error | undefined
  const tried = (err: Error): void => { reason ??= err }
  client.on('error', tried)
  try {
    await client.connect()
    await client.ping()
  } catch (err) {
    client.disconnect()
    throw new ConfigError(`Redis did not answer at ${target}: ${(reason ?? err as Error).message}`)
  } finally {
    client.off('error', tried)
  }
}

/**
 * Redis's `maxmemory-policy` (on a cluster: the first master's that evicts, else noeviction), read from INFO, which
 * managed services that refuse CONFIG still answer.
 */
export async function evictionPolicy (client: RedisClient): Promise<string> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client]
  const policies = await Promise.all(nodes.map(async (node) => /^maxmemory_policy:(\S+)/m.exec(await node.info('memory'))?.[1] ?? 'noeviction'))
  return policies.find((p) => p !== 'noeviction') ?? 'noeviction'
}

/**
 * What an evicting Redis would lose silently: phones' sessions, applied marks and de-duplication markers (turns
 * applied twice), clubs, staff. Refused in production, warned about elsewhere, naming the setting (as BullMQ does).
 */
async function checkEvictionPolicy (app: FastifyInstance, client: RedisClient): Promise<void> {
  const policy = await evictionPolicy(client)
  if (policy === 'noeviction') return
  const message = `Redis maxmemory-policy is ${policy}: the service needs noeviction (an evicted key loses a phone's session, ` +
    'its de-duplication markers, a club or a staff record, silently); set maxmemory-policy noeviction'
  if (app.config.env === 'production') throw new ConfigError(`${message} (refused in production)`)
  app.log.warn({ maxmemoryPolicy: policy }, message)
}

export default fp<RedisPluginOptions>(async (app, opts) => {
  if (opts.client) {
    app.decorate<RedisClient | null>('redis', opts.client)
    await checkEvictionPolicy(app, opts.client)
    return
  }
  const nodes = opts.clusterNodes
  if (!nodes && !opts.url) {
    app.log.warn('REDIS_URL is not set: running on in-memory stores (one process, nothing survives a restart)')
    app.decorate('redis', null)
    return
  }
  const client = nodes ? createRedisCluster(nodes, opts.keyPrefix) : createRedis(opts.url as string, opts.keyPrefix)
  await connectRedis(client, nodes ? `the cluster nodes ${describeNodes(nodes)}` : 'REDIS_URL')
  client.on('error', (err: Error) => app.log.error({ err }, 'redis error'))
  try {
    await checkEvictionPolicy(app, client)
  } catch (err) {
    client.disconnect()
    throw err
  }
  app.decorate<RedisClient | null>('redis', client)
  app.addHook('onClose', async () => { await client.quit() })
}, { name: 'redis' })
