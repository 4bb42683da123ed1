import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { LOG_FLUSH_MS } from '../../src/logger.ts'
import { TEST_SECRETS } from '../helper.ts'
import { startProcess, waitForHealth, type RunningProcess } from './process.ts'

// The service's log lines reach stdout (a pipe here, as under a log shipper) in batches: no line is lost when it
// stops on SIGTERM or on a fatal error, and a quiet service's line is out within the flush period.
const REQUESTS = 200
const dir = mkdtempSync(join(tmpdir(), 'club-logs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function start (nodeArgs: string[] = []): Promise<RunningProcess & { base: string }> {
  const port = await freePort()
  const running = startProcess(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/server.ts'], {
    PORT: String(port), HOST: '127.0.0.1', JWT_SECRET: TEST_SECRETS.JWT_SECRET,
  })
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base)
  return { ...running, base }
}

const linesOf = (stdout: string): Array<{ msg: string, reqId?: string, err?: { message: string } }> =>
  stdout.trim().split('\n').map((line) => JSON.parse(line))

/** Write system calls the process made so far, its threads included (the log's writes run on libuv's pool). */
const writesOf = (pid: number): number => Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1])

async function request (base: string, id: string): Promise<void> {
  const res = await fetch(`${base}/nothing`, { headers: { 'x-request-id': id } })
  expect(res.status).toBe(404)
  await res.arrayBuffer()
}

const completed = (stdout: string, id: string): boolean =>
  linesOf(stdout).some((line) => line.reqId === id && line.msg === 'request completed')

describe('log lines in batches', () => {
  it('writes many lines a system call, keeps every request\'s line through a SIGTERM, and a quiet line within the flush period', async () => {
    const service = await start()
    try {
      const pid = service.child.pid as number
      const before = writesOf(pid)
      for (let i = 0; i < REQUESTS; i++) await request(service.base, `burst-${i}`)
      // one write for the answer, and for its two log lines a share of a batched write (unbatched: two writes
      // and the pool's two wake-ups)
      const perRequest = (writesOf(pid) - before) / REQUESTS
      expect(perRequest).toBeLessThan(2.5)

      await new Promise((resolve) => setTimeout(resolve, 3 * LOG_FLUSH_MS))
      const asked = performance.now()
      await request(service.base, 'quiet')
      while (!completed(service.stdout(), 'quiet') && performance.now() - asked < 5_000) await new Promise((resolve) => setTimeout(resolve, 5))
      const waited = performance.now() - asked
      expect(completed(service.stdout(), 'quiet')).toBe(true)
      // the flush period and the loaded test machine's slack
      expect(waited).toBeLessThan(LOG_FLUSH_MS + 900)

      service.child.kill('SIGTERM')
      const [code] = await once(service.child, 'exit')
      expect(code).toBe(0)
      const stdout = service.stdout()
      for (let i = 0; i < REQUESTS; i++) expect(completed(stdout, `burst-${i}`), `burst-${i}`).toBe(true)
      expect(linesOf(stdout).map((line) => line.msg)).toContain('closing: finishing in-flight requests')
    } finally {
      service.child.kill('SIGKILL')
    }
  }, 60_000)

  it('writes the fatal error\'s line and every line before it when an uncaught exception stops the service', async () => {
    // fault injection: SIGWINCH (which the service ignores) throws outside any handler
    const fault = join(dir, 'fault.mjs')
    writeFileSync(fault, "process.on('SIGWINCH', () => setImmediate(() => { throw new Error('injected fault') }))\n")
    const service = await start(['--import', fault])
    try {
      for (let i = 0; i < 20; i++) await request(service.base, `before-${i}`)
      service.child.kill('SIGWINCH')
      const [code] = await once(service.child, 'exit')
      expect(code).toBe(1)
      const stdout = service.stdout()
      for (let i = 0; i < 20; i++) expect(completed(stdout, `before-${i}`), `before-${i}`).toBe(true)
      const fatal = linesOf(stdout).find((line) => line.msg === 'closing after an error')
      expect(fatal?.err?.message).toBe('injected fault')
    } finally {
      service.child.kill('SIGKILL')
    }
  }, 60_000)
})
