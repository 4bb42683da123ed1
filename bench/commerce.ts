import { clubSetupIds } from '../src/tenants/setup-ids.ts'
import { DEMO_CLUBS } from '../src/embedded-commerce/demo.ts'
import { DEMO_PASSWORD } from '../src/tenants/demo.ts'
import { SECRETS, send, startChild } from './lib.ts'

// The embedded commerce backend with the demo clubs, on a Redis of its own, in a child process of its own
// (bench/commerce-server.ts), as the service and the bare route are: its work does not wait for the bench's busy
// event loop, nor the bench's for it. The service reaches it at COMMERCE_URL as it would a Medusa, so the
// service's Redis holds only the service's own work; the child counts every request it receives, with its path.

export interface Commerce {
  url: string
  /** Requests received so far (`total`), and the method and URL of those from the `from`th on. */
  received: (from?: number) => Promise<{ total: number, paths: string[] }>
  /** Gives every demo variant `quantity` in stock, so that a long run never sells out. */
  restock: (quantity: number) => Promise<void>
  /** The backend's process, for its CPU time. */
  pid: number
  close: () => Promise<void>
}

export async function startCommerce (redisUrl: string, nodeArgs: string[] = []): Promise<Commerce> {
  const child = await startChild('bench/commerce-server.ts', { REDIS_URL: redisUrl, JWT_SECRET: SECRETS.JWT_SECRET }, nodeArgs)
  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await send(child.pool, {
      method,
      path,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }
    })
    if (res.status >= 300) throw new Error(`commerce ${method} ${path} answered ${res.status}: ${res.body}`)
    return JSON.parse(res.body) as Record<string, unknown>
  }
  return {
    url: child.url,
    pid: child.process.pid as number,
    received: async (from) => await call('GET', `/bench/received${from === undefined ? '' : `?from=${from}`}`, '') as { total: number, paths: string[] },
    restock: async (quantity) => {
      for (const club of DEMO_CLUBS) {
        const { token } = await call('POST', '/auth/user/emailpass', '', { email: `admin@${club.tenantId}.test`, password: DEMO_PASSWORD }) as { token: string }
        const location = clubSetupIds(club.tenantId).stockLocation
        for (const sku of club.products.flatMap((p) => p.variants.map((v) => v.sku))) {
          const found = await call('GET', `/admin/inventory-items?sku=${sku}`, token) as { inventory_items: Array<{ id: string }> }
          const item = found.inventory_items[0]
          if (!item) throw new Error(`commerce: no inventory item for ${sku}`)
          await call('POST', `/admin/inventory-items/${item.id}/location-levels/${location}`, token, { stocked_quantity: quantity })
        }
      }
    },
    close: child.stop,
  }
}
