import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'

// Tests run against a real redis-server: REDIS_URL when given, else one started here on a free loopback port.
let child: ChildProcess | undefined
let dir: string | undefined

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port')))
    })
  })
}

async function waitForRedis (url: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.ping()
      client.disconnect()
      return
    } catch {
      client.disconnect()
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  throw new Error(`redis-server did not answer at ${url}`)
}

export async function setup (project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL
  if (!url) {
    const port = await freePort()
    dir = mkdtempSync(join(tmpdir(), 'club-redis-'))
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
    child.once('error', (err) => { throw new Error(`cannot start redis-server (install Debian's redis-server): ${err.message}`) })
    url = `redis://127.0.0.1:${port}`
  }
  await waitForRedis(url)
  project.provide('redisUrl', url)
}

export async function teardown (): Promise<void> {
  child?.kill('SIGTERM')
  if (dir) rmSync(dir, { recursive: true, force: true })
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
  }
}
