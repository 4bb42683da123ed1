import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sample } from './samples.ts'

// A loopback stand-in for a commerce backend, for fault injection only: it speaks just enough of the Medusa
// dialect for one order, and each route's answer can be replaced by a fault.

export type Fault = { status: number, body?: string, headers?: Record<string, string> } | { delayMs: number } | 'hang'

export interface Recorded { method: string, path: string, body: any }

export interface FakeUpstream {
  url: string
  calls: Recorded[]
  /** Replace the answer of `METHOD /path` (path without query). */
  fault (route: string, fault: Fault | undefined): void
  /** The order's metadata as last written. */
  metadata (): Record<string, unknown> | null
  close (): Promise<void>
}

const fakeJwt = (exp: number, claims: Record<string, unknown> = {}) => `x.${Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url')}.y`
const UNAUTHORIZED = Symbol('401')

export async function startFakeUpstream (): Promise<FakeUpstream> {
  const calls: Recorded[] = []
  const faults = new Map<string, Fault>()
  const order = sample('admin_order').order
  order.sales_channel_id = 'sc_club_norte'
  order.customer_id = 'cus_ana'
  const address = { id: 'caaddr_1', first_name: null, last_name: null, country_code: 'ar' }
  const cart: Record<string, unknown> = {
    id: 'cart_1', region_id: 'reg_club_norte', sales_channel_id: 'sc_club_norte', email: 'ana@example.com', items: [], total: 0, shipping_address: address
  }
  const payment = order.payment_collections[0].payments[0]
  const hanging = new Set<ServerResponse>()

  const customers: Record<string, { id: string, email: string, first_name: string, last_name: string, metadata: Record<string, unknown> }> = {
    'ana@example.com': { id: 'cus_ana', email: 'ana@example.com', first_name: 'Ana', last_name: 'Pereyra', metadata: { clubs: ['club-norte', 'club-sur'] } },
    'bruno@example.com': { id: 'cus_bruno', email: 'bruno@example.com', first_name: 'Bruno', last_name: 'Díaz', metadata: { tenants: ['club-norte'] } },
  }
  const login = (actor: string) => (body: any) => body.password === 'demo-password'
    ? { token: fakeJwt(Math.floor(Date.now() / 1000) + 3600, { actor_type: actor, email: body.email }) }
    : UNAUTHORIZED
  const routes: Record<string, (body: any, req: IncomingMessage) => unknown> = {
    'POST /auth/user/emailpass': login('user'),
    'POST /auth/customer/emailpass': login('customer'),
    'GET /store/customers/me': (_body, req) => {
      const token = req.headers.authorization?.split(' ')[1] ?? ''
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}')
      const customer = customers[claims.email]
      return customer ? { customer } : UNAUTHORIZED
    },
    'GET /admin/customers': (_body, req) => {
      const email = new URL(req.url ?? '/', 'http://x').searchParams.get('email')
      const found = Object.values(customers).filter((c) => !email || c.email === email)
      return { customers: found, count: found.length, offset: 0, limit: 50 }
    },
    // the club's catalog, where an order's grams are looked up: nothing controlled in it
    'GET /store/products': () => ({ products: [], count: 0, offset: 0, limit: 500 }),
    'POST /store/carts': () => ({ cart }),
    'GET /store/carts/cart_1': () => ({ cart }),
    'POST /store/carts/cart_1': (body) => {
      if (body.shipping_address) cart.shipping_address = { id: 'caaddr_2', ...body.shipping_address }
      return { cart }
    },
    'POST /store/carts/cart_1/line-items': () => ({ cart }),
    'GET /store/shipping-options': () => ({ shipping_options: [{ id: 'so_pickup', name: 'pickup', amount: 0 }] }),
    'POST /store/carts/cart_1/shipping-methods': () => ({ cart }),
    'POST /store/payment-collections': () => ({ payment_collection: { id: 'pay_col_1' } }),
    'GET /store/payment-providers': () => ({ payment_providers: [{ id: 'pp_system_default' }] }),
    'POST /store/payment-collections/pay_col_1/payment-sessions': () => ({ payment_collection: { id: 'pay_col_1' } }),
    'POST /store/carts/cart_1/complete': () => ({ type: 'order', order }),
    [`GET /admin/orders/${order.id}`]: () => ({ order }),
    'GET /admin/orders': () => ({ orders: [order], count: 1, offset: 0, limit: 10 }),
    [`POST /admin/orders/${order.id}`]: (body) => {
      order.metadata = body.metadata
      return { order }
    },
    [`POST /admin/orders/${order.id}/fulfillments`]: (body) => {
      order.fulfillments = [{
        id: 'ful_1',
        location_id: body.location_id,
        created_at: new Date().toISOString(),
        shipped_at: null,
        items: body.items.map((i: any) => ({ id: `fulit_${i.id}`, line_item_id: i.id, quantity: i.quantity }))
      }]
      for (const item of order.items) item.detail.fulfilled_quantity = item.quantity
      order.fulfillment_status = 'fulfilled'
      return { order }
    },
    [`POST /admin/orders/${order.id}/fulfillments/ful_1/shipments`]: () => {
      order.fulfillments[0].shipped_at = new Date().toISOString()
      order.fulfillment_status = 'shipped'
      return { order }
    },
    [`POST /admin/orders/${order.id}/complete`]: () => {
      order.status = 'completed'
      return { order }
    },
    [`POST /admin/payments/${payment.id}/capture`]: () => {
      payment.captured_at = new Date().toISOString()
      order.payment_status = 'captured'
      return { payment }
    },
  }

  function respond (req: IncomingMessage, res: ServerResponse, route: string, raw: string): void {
    const handler = routes[route]
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Cannot find</html>')
      return
    }
    const answer = handler(raw ? JSON.parse(raw) : {}, req)
    if (answer === UNAUTHORIZED) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({ type: 'unauthorized', message: 'Invalid email or password' })
      )
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.on('data', (chunk) => { raw += chunk })
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? ''
      const route = `${req.method} ${path}`
      calls.push({ method: req.method ?? '', path: req.url ?? '', body: raw ? JSON.parse(raw) : undefined })
      const fault = faults.get(route)
      if (fault === 'hang') {
        hanging.add(res)
        return
      }
      if (fault && 'delayMs' in fault) {
        setTimeout(() => respond(req, res, route, raw), fault.delayMs)
        return
      }
      if (fault) {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(
          fault.body ?? JSON.stringify({ type: 'unexpected_state', message: 'boom' })
        )
        return
      }
      respond(req, res, route, raw)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    fault: (route, fault) => { if (fault) faults.set(route, fault); else faults.delete(route) },
    metadata: () => order.metadata,
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
