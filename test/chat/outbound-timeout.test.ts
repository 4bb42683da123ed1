import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendBodyFor } from '../../src/chat/outbound/messages.ts'
import { ProviderClient } from '../../src/chat/outbound/provider-client.ts'

// A send's timeout lets an answer already on the socket win (src/chat/outbound/provider-client.ts). A paused
// process (SIGSTOP) resumes with its timers overdue and the provider's answers waiting unread on its sockets; the
// event loop runs the timers before it reads the sockets, so a plain timeout re-sent replies the provider took.
// The stall is simulated here: the loopback provider answers, then blocks the event loop past the send's timeout.

const stall = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until) { /* the loop is stopped */ } }

describe('a send whose answer arrived while the event loop stood still', () => {
  let server: Server
  let url: string
  /** Requests answered together, then the loop blocked 600 ms; 'silent' never answers. */
  let together = 1
  let silent = false
  let requests = 0
  let waiting: Array<() => void> = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++
      const n = requests
      req.resume()
      req.on('end', () => {
        if (silent) return
        res.writeHead(200, { 'content-type': 'application/json' })
        waiting.push(() => { res.end(JSON.stringify({ messages: [{ id: `wamid.${n}` }] }), () => { if (waiting.length === 0) stall(600) }) })
        if (waiting.length < together) return
        // the answers are in the clients' socket buffers once the writes complete; then the loop stalls
        const answers = waiting
        waiting = []
        for (const answer of answers) answer()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const body = sendBodyFor('5491100000001', { type: 'text', text: { body: 'hola' } })
  const entry = (id: string) => ({ id, phone: '5491100000001', tenantId: undefined, at: 0, body })
  const never = new AbortController().signal

  it('is read as delivered, not retried, although the timer was due before the socket was read', async () => {
    const agent = new Agent({ connections: 4 })
    try {
      const client = new ProviderClient({ baseUrl: url, phoneNumberId: '123', apiKey: 'key', timeoutMs: 200, dispatcher: agent })
      const before = requests
      together = 3
      const started = performance.now()
      const sends = await Promise.all(['s:0', 's:1', 's:2'].map(async (id) => await client.deliver(entry(id), never)))
      // the stall happened (the loop blocked 600 ms, three times the timeout, with every answer unread) and every answer won
      expect(performance.now() - started).toBeGreaterThanOrEqual(600)
      expect(sends.map((d) => d.kind)).toEqual(['ok', 'ok', 'ok'])
      expect(sends.every((d) => d.kind === 'ok' && d.messageId?.startsWith('wamid.'))).toBe(true)
      expect(requests - before).toBe(3)
    } finally {
      await agent.close()
    }
  })

  it('still times out when no answer comes, within a loop turn of the timeout', async () => {
    const agent = new Agent({ connections: 1 })
    try {
      const client = new ProviderClient({ baseUrl: url, phoneNumberId: '123', apiKey: 'key', timeoutMs: 200, dispatcher: agent })
      silent = true
      const started = performance.now()
      const delivery = await client.deliver(entry('t:0'), never)
      expect(delivery).toEqual({ kind: 'retry', reason: 'no answer within 200 ms', retryAfterMs: undefined })
      expect(performance.now() - started).toBeGreaterThanOrEqual(195)
    } finally {
      await agent.destroy()
    }
  })
})
