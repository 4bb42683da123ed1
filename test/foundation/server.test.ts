import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { TEST_SECRETS } from '../helper.ts'
import { startProcess, waitForHealth } from './process.ts'

// The README's first command, as a process: `npm start` on embedded defaults (npm execs node, so that a signal
// sent to npm reaches the server).
describe('server process', () => {
  it('stops a bad start with one line naming the variable', async () => {
    const { child, output } = startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { PORT: 'eighty' })
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(output().trim()).toMatch(/^Invalid configuration: PORT /)
    expect(output().trim().split('\n')).toHaveLength(1)
  })

  it('stops with one line when Redis does not answer at REDIS_URL', async () => {
    const port = await freePort()
    const { child, output } = startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { REDIS_URL: `redis://127.0.0.1:${port}` })
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(output().trim()).toMatch(/^Redis did not answer at REDIS_URL: connect ECONNREFUSED/)
    expect(output().trim().split('\n')).toHaveLength(1)
  })

  it('leaves a fault signal its default (the process dies) rather than handling it as a request to close', async () => {
    const port = await freePort()
    const { child } = startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { PORT: String(port), HOST: '127.0.0.1' })
    try {
      await waitForHealth(`http://127.0.0.1:${port}`)
      child.kill('SIGSEGV')
      const [code, signal] = await once(child, 'exit')
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGSEGV' })
    } finally {
      child.kill('SIGKILL')
    }
  }, 40_000)

  it('runs on embedded defaults with demo data, keeps secrets out of the log, and closes on a SIGTERM sent to npm', async () => {
    const port = await freePort()
    const { child, output } = startProcess('npm', ['start'], { PORT: String(port), HOST: '127.0.0.1', JWT_SECRET: TEST_SECRETS.JWT_SECRET })
    try {
      await waitForHealth(`http://127.0.0.1:${port}`)
      const base = `http://127.0.0.1:${port}`
      const ready = await (await fetch(`${base}/ready`)).json()
      expect(ready).toEqual({ status: 'ready', redis: 'memory', commerce: { 'club-norte': 'up', 'club-sur': 'up' } })
      // a request in flight when SIGTERM arrives still gets its whole answer: the one-call order takes nine
      // upstream steps, and the signal comes while they run
      const login = await fetch(`${base}/auth/user/emailpass`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@club-norte.test', password: 'demo-password' })
      })
      const headers = { authorization: `Bearer ${(await login.json()).token}`, 'tenant-id': 'club-norte', 'content-type': 'application/json' }
      const products = await (await fetch(`${base}/store/products`, { headers })).json()
      const order = fetch(`${base}/api/orders/create-and-process`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          customer: { email: 'ana@example.com' },
          items: [{ variantId: products.products[0].variants[0].id, quantity: 1 }],
          shippingMethod: 'pickup',
          paymentMethod: 'cash'
        }),
      })
      await new Promise((resolve) => setTimeout(resolve, 15))
      child.kill('SIGTERM')
      const answer = await order
      expect(answer.status).toBe(200)
      expect((await answer.json()).order.status).toBe('completed')
      const [code] = await once(child, 'exit')
      expect(code).toBe(0)
      // the server itself is gone, not left running behind npm
      await expect(fetch(`${base}/health`)).rejects.toThrow()
      const log = output()
      expect(log).toContain('REDIS_URL is not set')
      expect(log).toContain('demo data loaded')
      expect(log).toContain('closing')
      expect(log).not.toContain(TEST_SECRETS.JWT_SECRET)
    } finally {
      child.kill('SIGKILL')
    }
  }, 40_000)
})
