import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startRedisServer, waitForRedis, type RedisServer } from '../scripts/lib/redis-server.ts'

// Tests run against a real redis-server: REDIS_URL when given, else one started here on a free loopback port.
let server: RedisServer | undefined

export async function setup (project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL
  if (url) {
    await waitForRedis(url)
  } else {
    server = await startRedisServer()
    url = server.url
  }
  project.provide('redisUrl', url)
}

export async function teardown (): Promise<void> {
  await server?.stop()
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
  }
}
