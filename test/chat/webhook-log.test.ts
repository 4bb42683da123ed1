import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { captureLog } from '../security/support.ts'
import { messageBody, newPhone, postWebhook } from './support.ts'

// At LOG_LEVEL=info each inbound message is logged by its turn; the webhook's own request lines are left out, and
// a refused call is a warning (a wrong secret must still show). Other routes log their requests as ever.

interface Line { level: number, msg: string, status?: number, req?: { url?: string }, reqId?: string }

describe('webhook logging at info', () => {
  const log = captureLog()
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ logTo: log.stream, logLevel: 'info' }) })
  afterAll(async () => { await t.close() })

  const linesOf = (requestId: string): Line[] => log.text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line).filter((l) => l.reqId === requestId)

  it('writes no request lines for a signed call', async () => {
    const res = await postWebhook(t.app, messageBody(newPhone(), { text: 'hola' }), { key: randomUUID() })
    expect(res.statusCode).toBe(200)
    expect(linesOf(String(res.headers['x-request-id']))).toEqual([])
  })

  it('writes one warning for a badly signed call', async () => {
    const res = await postWebhook(t.app, messageBody(newPhone(), { text: 'hola' }), { signature: 'ab'.repeat(32) })
    expect(res.statusCode).toBe(401)
    expect(linesOf(String(res.headers['x-request-id']))).toMatchObject([{
      level: 40, status: 401, msg: 'chat webhook refused: Invalid or missing webhook signature'
    }])
  })

  it('still logs the requests of other routes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' })
    expect(linesOf(String(res.headers['x-request-id'])).map((l) => l.msg)).toEqual(['incoming request', 'request completed'])
  })
})
