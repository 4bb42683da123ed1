import { writeFile } from 'node:fs/promises'
import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { demoTenants } from '../../src/tenants/demo.ts'

// A loopback in front of the embedded commerce backend that records every call the service makes to it, as a
// real Medusa would see them: method, path and query. The app reaches it through COMMERCE_TENANTS_FILE (each
// demo club's settings with the proxy's base URL); it forwards to the backend once `target` is set. A fault
// answers a matching call with an error status, before it reaches the backend or (`landed`) after it did.

export interface Seen { method: string, path: string, query: URLSearchParams }

export interface ProxyFault {
  method: string
  /** Matches a path that starts with it (and ends with `pathEnds`, when given). */
  path: string
  pathEnds?: string
  status: number
  /** The call reaches the backend and only its answer is replaced (a write whose answer was lost). */
  landed?: boolean
  /** Used up after this many calls (then removed from `faults`); unset: until removed. */
  times?: number
}

export interface CountingProxy {
  url: string
  /** COMMERCE_TENANTS_FILE for the demo clubs, pointed at the proxy. */
  tenantsFile: string
  /** The embedded backend's URL (known once the app is built). */
  target: string
  calls: Seen[]
  /** Faults in force, checked in order; remove one to heal. */
  faults: ProxyFault[]
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
    faults: [],
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
    const fault = proxy.faults.find((f) => f.method === req.method && url.pathname.startsWith(f.path) && url.pathname.endsWith(f.pathEnds ?? ''))
    if (fault?.times !== undefined && --fault.times <= 0) proxy.faults.splice(proxy.faults.indexOf(fault), 1)
    const failed = (status: number) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"type":"unknown_error","message":"An unknown error occurred."}')
    if (fault && !fault.landed) {
      req.resume()
      failed(fault.status)
      return
    }
    const upstream = forward(`${proxy.target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      if (fault) {
        answer.resume()
        failed(fault.status)
        return
      }
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
