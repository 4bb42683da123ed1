import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startRedisServer, waitForRedis, type RedisServer } from '../scripts/lib/redis-server.ts'
import { startRedisCluster, type RedisClusterServers } from '../scripts/lib/redis-cluster.ts'

// Tests run against a real redis-server: REDIS_URL when given, else one started here on a free loopback port.
// The store suites also run on a 3-master Redis Cluster, started here once for the whole run (about 2 s).
let server: RedisServer | undefined
let cluster: RedisClusterServers | undefined

export async function setup (project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL
  if (url) {
    await waitForRedis(url)
  } else {
    server = await startRedisServer()
    url = server.url
  }
  project.provide('redisUrl', url)
  cluster = await startRedisCluster()
  project.provide('redisClusterNodes', cluster.nodes)
}

export async function teardown (): Promise<void> {
  await Promise.all([server?.stop(), cluster?.stop()])
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
    /** `host:port` of each master of the test cluster. */
    redisClusterNodes: string[]
  }
}
