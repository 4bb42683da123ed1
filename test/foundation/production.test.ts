import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { deleteKeysWithPrefix } from '../../scripts/lib/redis-server.ts'
import { TEST_SECRETS } from '../helper.ts'
import { startProcess, waitForHealth } from './process.ts'

// The production start as docs/operations.md gives it: `npm run build`, then `node dist/src/server.js` with
// NODE_ENV=production. The SIGTERM goes to exactly that process.
const METRICS_TOKEN = 'test-metrics-token-0123456789'

describe('production start from the build', () => {
  const prefix = `test:${randomUUID()}:`
  beforeAll(async () => {
    await promisify(execFile)('npm', ['run', 'build'], { timeout: 240_000 })
  }, 240_000)
  afterAll(async () => { await deleteKeysWithPrefix(inject('redisUrl'), prefix) })

  it('serves from dist/, logs JSON, protects /metrics, and exits 0 on SIGTERM', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const { child, stdout } = startProcess(process.execPath, ['dist/src/server.js'], {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: prefix,
      SEED: 'demo',
      METRICS_TOKEN,
      ...TEST_SECRETS,
    })
    try {
      await waitForHealth(base)
      const ready = await fetch(`${base}/ready`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready', redis: 'up', commerce: { 'club-norte': 'up', 'club-sur': 'up' } })

      const anonymous = await fetch(`${base}/metrics`)
      expect(anonymous.status).toBe(401)
      expect((await anonymous.json()).error.code).toBe('UNAUTHORIZED')
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      expect(metrics.status).toBe(200)
      expect(await metrics.text()).toContain('club_http_request_duration_seconds_count{method="GET",route="/ready",status="200"} 1')

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
