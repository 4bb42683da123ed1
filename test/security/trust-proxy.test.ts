import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Issue 25, item 5: behind a reverse proxy the rate limit counted every client as one address, so one client
// could lock everyone out. A tiny loopback proxy stands in for nginx: it connects to the service from its own
// address (127.0.0.5) and appends each client's address to X-Forwarded-For, as `proxy_add_x_forwarded_for` does.
// Clients and proxy are told apart by their loopback addresses (Linux answers on all of 127.0.0.0/8).

const PROXY = '127.0.0.5'
const LIMIT = 5

interface Proxy { url: string, close: () => Promise<void> }

async function startProxy (target: string): Promise<Proxy> {
  const to = new URL(target)
  const server: Server = createServer((req, res) => {
    const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')
    const headers = { ...req.headers, 'x-forwarded-for': forwarded }
    const upstream = httpRequest({ host: to.hostname, port: to.port, localAddress: PROXY, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => { res.writeHead(502).end() })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => { await new Promise<void>((resolve) => server.close(() => { resolve() })) },
  }
}

/** A GET from the given local address: its status. Unknown routes count against the limit like any other. */
async function get (url: string, from: string, headers: Record<string, string> = {}): Promise<number> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/no-such-route`, { localAddress: from, headers, agent: false }, (res) => {
      res.resume()
      res.on('end', () => { resolve(res.statusCode ?? 0) })
    })
    req.on('error', reject)
    req.end()
  })
}

const statuses = async (n: number, call: () => Promise<number>): Promise<number[]> => {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await call())
  return out
}

describe.each([
  ['the proxy\'s address', PROXY],
  ['a CIDR range holding it', '127.0.0.4/31'],
  ['a hop count', '1'],
])('TRUST_PROXY as %s: two clients behind the proxy are counted apart', (_, trust) => {
  let t: TestApp
  let service: string
  let proxy: Proxy
  beforeAll(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: trust, RATE_LIMIT_MAX: String(LIMIT) } })
    service = await t.app.listen({ port: 0, host: '127.0.0.1' })
    proxy = await startProxy(service)
  })
  afterAll(async () => {
    await proxy.close()
    await t.close()
  })

  it('one client using up its limit leaves the other client\'s intact', async () => {
    expect(await statuses(LIMIT, async () => await get(proxy.url, '127.0.0.2'))).toEqual(Array(LIMIT).fill(404))
    expect(await get(proxy.url, '127.0.0.2')).toBe(429)
    expect(await get(proxy.url, '127.0.0.3')).toBe(404)
  })

  if (trust !== '1') {
    it('a client that reaches the service directly is counted by its own address, whatever X-Forwarded-For it sends', async () => {
      // it claims to be 127.0.0.3 (a client behind the proxy), then someone new each time: neither helps it
      expect(await get(service, '127.0.0.6', { 'x-forwarded-for': '127.0.0.3' })).toBe(404)
      const forged = await statuses(LIMIT, async () => await get(service, '127.0.0.6', { 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.1` }))
      expect(forged.at(-1)).toBe(429)
      expect(await get(proxy.url, '127.0.0.3')).toBe(404)
    })
  }
})

describe('TRUST_PROXY is read as the issue says', () => {
  const read = (value: string) => loadConfig({ NODE_ENV: 'test', TRUST_PROXY: value }).trustProxy
  it('digits are a hop count (a number), addresses and ranges a list; anything else is refused naming the variable', () => {
    expect(read('2')).toBe(2)
    expect(read('10.0.0.5, 10.0.1.0/24,::1,loopback')).toEqual(['10.0.0.5', '10.0.1.0/24', '::1', 'loopback'])
    expect(loadConfig({ NODE_ENV: 'test' }).trustProxy).toBe(false)
    for (const bad of ['true', '10.0.0.300', '10.0.0.0/33', 'proxy.example.org', '1.2.3.4/8/8', ',']) {
      expect(() => read(bad), bad).toThrow(/TRUST_PROXY/)
    }
  })
})

describe('without TRUST_PROXY, a client\'s forged X-Forwarded-For is not believed', () => {
  let t: TestApp
  let service: string
  beforeAll(async () => {
    t = await buildTestApp({ env: { RATE_LIMIT_MAX: String(LIMIT) } })
    service = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => { await t.close() })

  it('counts the connection\'s address', async () => {
    const forged = await statuses(LIMIT + 1, async () => await get(service, '127.0.0.7', { 'x-forwarded-for': `10.8.${Math.floor(Math.random() * 250)}.1` }))
    expect(forged.at(-1)).toBe(429)
  })
})
