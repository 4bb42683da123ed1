import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'
import { buildCommerceBackend } from '../src/embedded-commerce/backend.ts'
import { clubSetupIds } from '../src/tenants/setup-ids.ts'
import { DEMO_CLUBS } from '../src/embedded-commerce/demo.ts'
import { createRedis } from '../src/plugins/redis.ts'
import { DEMO_PASSWORD } from '../src/tenants/demo.ts'
import { SECRETS, send } from './lib.ts'

// The embedded commerce backend with the demo clubs, on a Redis of its own, in the bench's process: the service
// reaches it at COMMERCE_URL as it would a Medusa, so the service's Redis holds only the service's own work, and
// every HTTP call the service makes to it is counted here, with its path.

export interface Commerce {
  url: string
  /** Requests taken so far, and their paths (method and URL). */
  calls: () => number
  paths: string[]
  /** Gives every demo variant `quantity` in stock, so that a long run never sells out. */
  restock: (quantity: number) => Promise<void>
  close: () => Promise<void>
}

export async function startCommerce (redisUrl: string): Promise<Commerce> {
  const redis = createRedis(redisUrl, 'bench-commerce:')
  await redis.connect()
  const backend = await buildCommerceBackend({ redis, jwtSecret: SECRETS.JWT_SECRET, seed: true })
  await backend.listen({ port: 0, host: '127.0.0.1' })
  let calls = 0
  const paths: string[] = []
  backend.server.on('request', (req: { method?: string, url?: string }) => {
    calls++
    paths.push(`${req.method ?? ''} ${req.url ?? ''}`)
  })
  const url = `http://127.0.0.1:${(backend.server.address() as AddressInfo).port}`
  const pool = new Pool(url)
  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await send(pool, { method, path, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } })
    if (res.status >= 300) throw new Error(`commerce ${method} ${path} answered ${res.status}: ${res.body}`)
    return JSON.parse(res.body) as Record<string, unknown>
  }
  return {
    url,
    calls: () => calls,
    paths,
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
    close: async () => {
      await pool.close()
      await backend.close()
      redis.disconnect()
    },
  }
}
