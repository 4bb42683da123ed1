import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { buildCommerceBackend } from '../src/embedded-commerce/backend.ts'
import type { OrderDoc } from '../src/embedded-commerce/model.ts'
import { saveCustomer } from '../src/embedded-commerce/services/accounts.ts'
import { orderIndexes } from '../src/embedded-commerce/services/carts.ts'
import { INDEX, score } from '../src/embedded-commerce/services/context.ts'
import { RedisCommerceStore } from '../src/embedded-commerce/store/redis.ts'
import type { IndexEntry } from '../src/embedded-commerce/store/port.ts'
import { orderDoc } from '../test/embedded-commerce/docs.ts'
import { fmt, redisMicros, scaled, SECRETS, type Target } from './lib.ts'

// What grows with a club's traffic, held against the start of its day: an operation must cost Redis the same at
// the end of a busy day as at its start. Each case runs on a redis-server of its own and reads Redis's own clock
// (INFO commandstats: microseconds spent in commands, those a script calls included). bench/phone-day.ts holds
// a phone's messages the same way.

const SAMPLE = 200
const ROUNDS = 5

/**
 * Redis's microseconds per call: the least of ROUNDS rounds of SAMPLE calls each (a busy machine stretches Redis's
 * clock too, whatever the command did: the least round is the one least stretched).
 */
async function redisPerCall (redis: Redis, call: () => Promise<void>): Promise<number> {
  let least = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    const before = await redisMicros(redis)
    for (let i = 0; i < SAMPLE; i++) await call()
    least = Math.min(least, (await redisMicros(redis) - before) / SAMPLE)
  }
  return least
}

async function staffHeaders (app: FastifyInstance): Promise<Record<string, string>> {
  const login = await app.inject({ method: 'POST', url: '/auth/user/emailpass', payload: { email: 'admin@club-norte.test', password: 'demo-password' } })
  return { authorization: `Bearer ${(login.json() as { token: string }).token}` }
}

async function ok (app: FastifyInstance, url: string, headers: Record<string, string>): Promise<void> {
  const res = await app.inject({ method: 'GET', url, headers })
  if (res.statusCode !== 200) throw new Error(`bench/growth.ts: ${url} answered ${res.statusCode}: ${res.body}`)
}

/**
 * Each list's Redis time per call once `grow(100)` has run and again after `grow(total)`, each list warmed once
 * first (the backend's code, its scripts, an index filled on first use); `what(n)` names the n-th of what grows.
 */
async function heldAgainstStart (
  redis: Redis, app: FastifyInstance, headers: Record<string, string>, lists: ReadonlyArray<{ name: string, url: string }>,
  total: number, grow: (n: number) => Promise<void>, what: (n: number) => string
): Promise<Target[]> {
  const sample = async (url: string): Promise<number> => await redisPerCall(redis, async () => await ok(app, url, headers))
  await grow(100)
  for (const { url } of lists) await sample(url)
  // one list at a time: Redis's clock counts every caller
  const first: number[] = []
  for (const { url } of lists) first.push(await sample(url))
  await grow(total)
  const last: number[] = []
  for (const { url } of lists) last.push(await sample(url))
  return lists.map(({ name }, i) => {
    const [a, b] = [first[i] as number, last[i] as number]
    const ratio = b / a
    process.stdout.write(`  ${name}: Redis ${fmt(a)} µs at ${what(100)}, ${fmt(b)} µs at ${what(total)} (${fmt(ratio)}x)\n`)
    return { figure: `Redis time of ${name} at ${what(total)}, vs ${what(100)}`, value: `${fmt(ratio)}x`, target: '<= 1.5x', met: ratio <= 1.5 }
  })
}

const CHANNEL = 'sc_club_norte'
const MEMBER = 'cus_ana'

/** An order as a completed cart leaves it, with the completion's activity. */
function order (i: number, customer: string, at: number): OrderDoc {
  const activities = [{ at: new Date(at).toISOString(), step: 'completed', note: 'placed through the chat' }]
  return orderDoc(`order_bench${String(i).padStart(7, '0')}`, CHANNEL, customer, at, {
    display_id: i + 1,
    cart_id: `cart_bench${i}`,
    region_id: 'reg_club_norte',
    stock_location_id: 'sloc_club_norte',
    email: `${customer}@example.com`,
    metadata: { activities },
  })
}

/**
 * Orders asked of the embedded backend while the club's orders grow: a member's (GET /admin/orders?customer_id=,
 * what the service asks for a member's list and the chat's "my orders" and "repeat my last order"; the member
 * places one order in ten, so their own orders grow too) and the staff's first page of the club's (newest first,
 * 20). Orders are written with the indexes a cart's completion writes.
 */
async function orderLists (redis: Redis): Promise<Target[]> {
  const app = await buildCommerceBackend({ redis, jwtSecret: SECRETS.JWT_SECRET, seed: true })
  try {
    const store = new RedisCommerceStore(redis)
    const headers = await staffHeaders(app)
    const lists = [
      { name: 'a member\'s order list', url: `/admin/orders?customer_id=${MEMBER}&sales_channel_id=${CHANNEL}&limit=5&fields=id` },
      { name: 'the staff\'s first page of orders', url: `/admin/orders?sales_channel_id=${CHANNEL}&limit=20&order=-created_at&fields=id` },
    ]
    const total = scaled(10_000, 1_000)
    const start = Date.parse('2026-03-01T10:00:00.000Z')
    let placed = 0
    const placeUpTo = async (n: number): Promise<void> => {
      for (; placed < n; placed++) {
        const customer = placed % 10 === 0 ? MEMBER : `cus_bench${placed % 997}`
        const o = order(placed, customer, start + placed * 1000)
        const indexes = [INDEX.ordersOfChannel(CHANNEL), INDEX.ordersOfCustomer(customer), INDEX.ordersOfCustomerIn(customer, CHANNEL)]
        await store.create('order', o, indexes.map((index) => ({ index, score: score(o.created_at) })), [])
      }
    }
    return await heldAgainstStart(redis, app, headers, lists, total, placeUpTo, (n) => `the club's ${n}th order`)
  } finally {
    await app.close()
  }
}

/**
 * The customers of a member's email (GET /admin/customers?email=, asked before every member's order list to find
 * the guests made for that email), asked while the club's members grow.
 */
async function customersOfEmail (redis: Redis): Promise<Target> {
  const app = await buildCommerceBackend({ redis, jwtSecret: SECRETS.JWT_SECRET, seed: true })
  try {
    const ctx = { store: new RedisCommerceStore(redis), jwtSecret: SECRETS.JWT_SECRET }
    const headers = await staffHeaders(app)
    const url = '/admin/customers?email=ana@example.com&limit=50&order=created_at&fields=id,email'
    const total = scaled(5_000, 500)
    const start = Date.parse('2026-03-01T10:00:00.000Z')
    let made = 0
    const registerUpTo = async (n: number): Promise<void> => {
      for (; made < n; made++) {
        const at = new Date(start + made * 1000).toISOString()
        const member = { id: `cus_member${made}`, email: `member${made}@example.com`, first_name: 'Member', last_name: String(made), phone: null }
        await saveCustomer(ctx, { ...member, has_account: true, metadata: { clubs: ['club-norte'] }, created_at: at, updated_at: at })
      }
    }
    const lists = [{ name: 'the customers of a member\'s email', url }]
    return (await heldAgainstStart(redis, app, headers, lists, total, registerUpTo, (n) => `the club's ${n}th member`))[0] as Target
  } finally {
    await app.close()
  }
}

/**
 * The staff's customer list (GET /admin/customers, no email: what the club's member list pages through; a page
 * of 50, full from the 100th customer on) and a guest's record (GET /admin/customers/:id of a customer a cart's
 * email made, visible to the staff of the clubs it ordered from), asked while the backend's customers grow: of
 * each ten, about half members of the staff's club, half another club's, one a guest that ordered in the staff's
 * club (every other time the asked guest orders instead, so its orders grow too).
 */
async function customerLists (redis: Redis): Promise<Target[]> {
  const app = await buildCommerceBackend({ redis, jwtSecret: SECRETS.JWT_SECRET, seed: true })
  try {
    const store = new RedisCommerceStore(redis)
    const ctx = { store, jwtSecret: SECRETS.JWT_SECRET }
    const headers = await staffHeaders(app)
    const guest = 'cus_bench_guest'
    const lists = [
      { name: 'the staff\'s first page of customers', url: '/admin/customers?limit=50&offset=0&fields=id,email' },
      { name: 'a guest\'s record', url: `/admin/customers/${guest}?fields=id,email` },
    ]
    const total = scaled(5_000, 500)
    const start = Date.parse('2026-03-01T10:00:00.000Z')
    const at = (i: number): string => new Date(start + i * 1000).toISOString()
    const guestDoc = { email: 'guest@example.com', first_name: null, last_name: null, phone: null, has_account: false, metadata: null }
    // a guest is in the club's index once it ordered there (as a cart's completion lists it)
    const indexes = (n: number, ordered = true): IndexEntry[] =>
      [INDEX.customers, ...(ordered ? [INDEX.customersOfClub('club-norte')] : [])].map((index) => ({ index, score: start + n * 1000 }))
    await store.create('customer', { id: guest, ...guestDoc, created_at: at(0), updated_at: at(0) }, indexes(0), [])
    let made = 0
    const orderOf = async (customer: string, i: number): Promise<void> => {
      const o = order(i, customer, start + i * 1000)
      await store.create('order', o, orderIndexes(o, 'club-norte').indexes, [])
    }
    const makeUpTo = async (n: number): Promise<void> => {
      for (; made < n; made++) {
        if (made % 10 === 9) {
          const id = `cus_guest${made}`
          const ordering = made % 20 !== 9
          const doc = { id, ...guestDoc, email: `guest${made}@example.com`, created_at: at(made), updated_at: at(made) }
          await store.create('customer', doc, indexes(made, ordering), [])
          await orderOf(ordering ? id : guest, made)
          continue
        }
        const member = { id: `cus_member${made}`, email: `member${made}@example.com`, first_name: 'Member', last_name: String(made), phone: null }
        const clubs = made % 2 === 0 ? ['club-norte'] : ['club-other']
        await saveCustomer(ctx, { ...member, has_account: true, metadata: { clubs }, created_at: at(made), updated_at: at(made) })
      }
    }
    return await heldAgainstStart(redis, app, headers, lists, total, makeUpTo, (n) => `the backend's ${n}th customer`)
  } finally {
    await app.close()
  }
}

export async function run (): Promise<Target[]> {
  const server = await startRedisServer()
  const redis = new Redis(server.url)
  try {
    const lists = [...await orderLists(redis), await customersOfEmail(redis)]
    // on a Redis of its own: the cases above leave a club with 5,000 members
    const own = await startRedisServer()
    const other = new Redis(own.url)
    try {
      return [...lists, ...await customerLists(other)]
    } finally {
      other.disconnect()
      await own.stop()
    }
  } finally {
    redis.disconnect()
    await server.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run()
