import { writeFile } from 'node:fs/promises'
import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { demoTenants } from '../../src/tenants/demo.ts'

// A loopback in front of the embedded commerce backend that records every call the service makes to it, as a
// real Medusa would see them: method, path and query. The app reaches it through COMMERCE_TENANTS_FILE (each
// demo club's settings with the proxy's base URL); it forwards to the backend once `target` is set.

export interface Seen { method: string, path: string, query: URLSearchParams }

export interface CountingProxy {
  url: string
  /** COMMERCE_TENANTS_FILE for the demo clubs, pointed at the proxy. */
  tenantsFile: string
  /** The embedded backend's URL (known once the app is built). */
  target: string
  calls: Seen[]
  /** The calls made while `run` ran, as `METHOD /path`. */
  during: (run: () => Promise<unknown>) => Promise<string[]>
  close: () => Promise<void>
}

export async function startCountingProxy (): Promise<CountingProxy> {
  const proxy: CountingProxy = {
    url: '',
    tenantsFile: join(tmpdir(), `tenants-${randomUUID()}.json`),
    target: '',
    calls: [],
    during: async (run) => {
      const from = proxy.calls.length
      await run()
      return proxy.calls.slice(from).map((c) => `${c.method} ${c.path}`)
    },
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) },
  }
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy')
    proxy.calls.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams })
    const upstream = forward(`${proxy.target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const file = Object.fromEntries(demoTenants.map((t) => [t.id, { ...t.commerce, baseUrl: proxy.url }]))
  await writeFile(proxy.tenantsFile, JSON.stringify(file))
  return proxy
}
