import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { deleteKeysWithPrefix } from '../../scripts/lib/redis-server.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { TEST_SECRETS } from '../helper.ts'
import { startProcess, waitForHealth } from './process.ts'

// The production start as the README and docs/operations.md give it: `npm run build`, then
// `NODE_ENV=production node --env-file=.env dist/src/server.js`. The SIGTERM goes to exactly that process.
const METRICS_TOKEN = 'test-metrics-token-0123456789'

describe('production start from the build', () => {
  const prefix = `test:${randomUUID()}:`
  const dir = mkdtempSync(join(tmpdir(), 'club-env-'))
  beforeAll(async () => {
    await promisify(execFile)('npm', ['run', 'build'], { timeout: 240_000 })
    // Production refuses SEED=demo: the clubs are laid into its Redis beforehand, as an operator's would be.
    const seeder = await buildApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SEED: 'demo', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, ...TEST_SECRETS })
    )
    await seeder.ready()
    await seeder.close()
  }, 240_000)
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await deleteKeysWithPrefix(inject('redisUrl'), prefix)
  })

  it('serves from dist/, logs JSON, protects /metrics, and exits 0 on SIGTERM', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const env = { PORT: String(port), HOST: '127.0.0.1', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, METRICS_TOKEN, ...TEST_SECRETS }
    const envFile = join(dir, '.env')
    writeFileSync(envFile, Object.entries(env).map(([name, value]) => `${name}=${value}\n`).join(''))
    const { child, stdout } = startProcess(process.execPath, [`--env-file=${envFile}`, 'dist/src/server.js'], { NODE_ENV: 'production' })
    try {
      await waitForHealth(base)
      const ready = await fetch(`${base}/ready`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready' })
      const detail = await fetch(`${base}/ready`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      expect(await detail.json()).toEqual({ status: 'ready', redis: 'up', maxmemoryPolicy: 'noeviction', commerce: { 'club-norte': 'up', 'club-sur': 'up' } })

      const anonymous = await fetch(`${base}/metrics`)
      expect(anonymous.status).toBe(401)
      expect((await anonymous.json()).error.code).toBe('UNAUTHORIZED')
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      expect(metrics.status).toBe(200)
      expect(await metrics.text()).toContain('club_http_request_duration_seconds_count{method="GET",route="/ready",status="200"} 2')

      child.kill('SIGTERM')
      const [code] = await once(child, 'exit')
      expect(code).toBe(0)
      await expect(fetch(`${base}/health`)).rejects.toThrow()
      // one JSON object per line, as log shippers read them, and no secret in any
      const lines = stdout().trim().split('\n')
      expect(lines.map((line) => JSON.parse(line).msg)).toContain('closing: finishing in-flight requests')
      for (const secret of [...Object.values(TEST_SECRETS), METRICS_TOKEN]) expect(stdout()).not.toContain(secret)
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)
})
