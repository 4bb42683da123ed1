import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './free-port.ts'

// A throwaway redis-server on a free loopback port, for the test suite and the benchmarks.

export async function redisAnswers (url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.ping()
    return true
  } catch {
    return false
  } finally {
    client.disconnect()
  }
}

export async function waitForRedis (url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await redisAnswers(url)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`redis-server did not answer at ${url}`)
}

/** Deletes every key under `prefix` (a test's or a benchmark's own), on a server shared with others. */
export async function deleteKeysWithPrefix (url: string, prefix: string): Promise<void> {
  const raw = new Redis(url, { keyPrefix: '' })
  try {
    let cursor = '0'
    do {
      const [next, found] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      if (found.length > 0) await raw.del(...found)
    } while (cursor !== '0')
  } finally {
    raw.disconnect()
  }
}

export interface RedisServer {
  url: string
  stop: () => Promise<void>
}

/**
 * Starts Debian's redis-server without persistence; rejects with a clear message when it is not installed.
 * `extraArgs` go to the server as given (a cluster member's flags); its files stay in a directory of its own.
 */
export async function startRedisServer (extraArgs: readonly string[] = []): Promise<RedisServer> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'club-redis-'))
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs], {
    stdio: 'ignore'
  })
  // Resolves once the server has exited, so that a test stopping it sees Redis down right after.
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  const started = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined))
    child.once('error', (err) => resolve(err))
  })
  if (started) {
    await stop()
    throw new Error(`cannot start redis-server (install Debian's redis-server): ${started.message}`)
  }
  const url = `redis://127.0.0.1:${port}`
  try {
    await waitForRedis(url)
  } catch (err) {
    await stop()
    throw err
  }
  return { url, stop }
}
