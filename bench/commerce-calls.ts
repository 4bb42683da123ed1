import { pathToFileURL } from 'node:url'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { CommerceClient } from '../src/commerce/client.ts'
import { Medusa } from '../src/commerce/medusa.ts'
import { resolveSettings } from '../src/commerce/settings.ts'
import { demoTenants } from '../src/tenants/demo.ts'
import { startCommerce } from './commerce.ts'
import { cpuClock, fmt, scaled } from './lib.ts'

// CPU time per commerce call of a cart's life, the calls the service makes for the bot's add-to-cart and
// confirmation, made by the service's own client (src/commerce) against the embedded backend alone (its own
// process and Redis): `count` carts (600, BENCH_SCALE scales it), 16 calls in flight, each kind in turn. The
// client's time is this process's; the backend's is read from /proc.

async function main (): Promise<void> {
  const redis = await startRedisServer()
  const commerce = await startCommerce(redis.url)
  const client = new CommerceClient(5_000)
  try {
    await commerce.restock(10_000_000)
    const medusa = new Medusa(client, resolveSettings(demoTenants[0] as (typeof demoTenants)[number], {}, commerce.url))
    const variant = (await medusa.listProducts({ limit: 1, offset: 0 })).products[0]?.variants?.[0]?.id as string
    const count = scaled(600, 50)
    process.stdout.write(
      `  ${count} carts, 16 calls in flight; CPU per call\n    ${'call'.padEnd(22)} ${'client µs'.padStart(9)} ${'backend µs'.padStart(10)}\n`
    )
    const totals = { client: 0, backend: 0 }
    const backendCpu = cpuClock(commerce.pid)
    const each = async <T, R>(call: string, items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> => {
      const out: R[] = []
      const before = { client: process.cpuUsage(), backend: backendCpu.read() }
      let next = 0
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < items.length) {
          const i = next++
          out[i] = await f(items[i] as T)
        }
      }))
      const used = process.cpuUsage(before.client)
      const client = (used.user + used.system) / items.length
      const backend = (backendCpu.read() - before.backend) / items.length
      totals.client += client
      totals.backend += backend
      process.stdout.write(`    ${call.padEnd(22)} ${fmt(client).padStart(9)} ${fmt(backend).padStart(10)}\n`)
      return out
    }
    const carts = await each('create with a line', Array.from({ length: count }), async () =>
      await medusa.createCart('bruno@example.com', undefined, [{ variant_id: variant, quantity: 2 }]))
    await each('read', carts, async (c) => await medusa.getCart(c.id))
    const options = await each('shipping options', carts, async (c) => await medusa.listShippingOptions(c.id))
    await each('shipping method', carts.map((c, i) => ({ cart: c.id, option: options[i]?.[0]?.id as string })), async (x) =>
      await medusa.addShippingMethod(x.cart, x.option))
    const collections = await each('payment collection', carts, async (c) => await medusa.createPaymentCollection(c.id))
    await each('payment providers', carts, async () => await medusa.listPaymentProviders())
    await each('payment session', collections, async (pc) => { await medusa.createPaymentSession(pc.id, 'pp_cash') })
    const orders = (await each('completion', carts, async (c) => await medusa.completeCart(c.id))).map((a) => a.type === 'order' ? a.order.id : '')
    await each('order read (admin)', orders, async (id) => await medusa.getOrder(id))
    await each('order update (admin)', orders, async (id) => await medusa.updateOrderMetadata(id, { bench: true }))
    process.stdout.write(`    ${'all ten'.padEnd(22)} ${fmt(totals.client).padStart(9)} ${fmt(totals.backend).padStart(10)}\n`)
  } finally {
    await client.close()
    await commerce.close()
    await redis.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
