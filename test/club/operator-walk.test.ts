import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { outbox, say, textOf } from '../chat/support.ts'

// An operator puts a club into service from nothing: an empty Redis (no demo), the club made by the command an
// operator runs (a real process), then everything else through the service's API, as the club's people would.

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../..', import.meta.url))

describe('operator walk: a club from nothing', () => {
  let t: TestApp
  let prefix: string
  beforeAll(async () => {
    t = await buildTestApp({ env: { SEED: 'none' } })
    prefix = t.redis?.options.keyPrefix ?? ''
  })
  afterAll(async () => { await t.close() })

  const club = async (...args: string[]) => await run(process.execPath, ['--import', 'tsx', 'scripts/club.ts', ...args], {
    cwd: repo,
    env: { ...process.env, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent', JWT_SECRET: TEST_SECRETS.JWT_SECRET },
  }).then((r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }), (e: { code: number, stdout: string, stderr: string }) => ({
    code: e.code, stdout: e.stdout, stderr: e.stderr
  }))
  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    await t.app.inject({
      method: method as 'GET', url, headers: { 'tenant-id': 'club-walk', ...headers }, ...(payload === undefined ? {} : { payload: payload as object })
    })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const backend = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${t.app.commerceUrl}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body)
    })
    return await res.json() as Record<string, any>
  }

  it('creates the club, staffs it, sells to a member and speaks its language', { timeout: 60_000 }, async () => {
    expect(await t.app.tenants.list()).toEqual([])
    expect(
      (await t.app.inject({ method: 'POST', url: '/auth/user/emailpass', payload: { email: 'olga@walk.test', password: 'olga-password' } })).statusCode
    ).toBe(401)

    // The operator: bad input is refused with nothing made, then the club is created (twice: the second is 409).
    const bad = await club('create', '--id', 'club-walk', '--name', 'Club Walk', '--time-zone', 'GMT-3', '--admin-email', 'olga@walk.test')
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('timeZone')])
    expect(await t.app.tenants.list()).toEqual([])
    const created = await club(
      'create', '--id', 'club-walk', '--name', 'Club Walk', '--time-zone', 'America/Montevideo', '--currency', 'UYU', '--country', 'uy',
      '--pickup-address',
      'Av. 18 de Julio 1000, Montevideo', '--pickup-hours', 'Lun a vie 10-18', '--delivery-price', '200', '--admin-email',
      'Olga@Walk.test', '--admin-name',
      'Olga Paz', '--json'
    )
    expect(created.code, created.stderr).toBe(0)
    const { club: made, invite } = JSON.parse(created.stdout)
    expect(made).toMatchObject({ id: 'club-walk', locale: 'es', timeZone: 'America/Montevideo', currency: 'UYU', commerce: { adminPassword: '***' } })
    expect((await club('create', '--id', 'club-walk', '--name', 'Again', '--admin-email', 'x@walk.test')).code).toBe(3)
    expect((await club('list')).stdout).toContain('club-walk\tClub Walk\tes\tAmerica/Montevideo\tUYU')

    // The first admin sets a password with the printed invite token and logs in.
    expect((await call('POST', '/api/staff/invites/accept', { token: invite.token, password: 'olga-password' })).statusCode).toBe(201)
    const olga = (await call('POST', '/auth/user/emailpass', { email: 'olga@walk.test', password: 'olga-password' })).json().token as string
    const admin = bearer(olga)

    // A grower is invited, accepts, logs in and records a crop.
    const invited = (await call('POST', '/api/staff', { email: 'gus@walk.test', name: 'Gus Grower', role: 'grower' }, admin)).json()
    expect((await call('POST', '/api/staff/invites/accept', { token: invited.token, password: 'gus-password' })).statusCode).toBe(201)
    const gus = bearer((await call('POST', '/auth/user/emailpass', { email: 'gus@walk.test', password: 'gus-password' })).json().token)
    const crop = await call('POST', '/api/crops', { name: 'Primera', strain: 'strain_walk_gelato', strainName: 'Gelato' }, gus)
    expect(crop.statusCode, crop.body).toBe(201)

    // The catalog is the backend's (Medusa's admin, here the embedded one's): the admin adds a product with stock.
    const upstream = (await backend('POST', '/auth/user/emailpass', '', { email: 'olga@walk.test', password: 'olga-password' })).token as string
    const { product } = await backend('POST', '/admin/products', upstream, {
      title: 'Flores',
      status: 'published',
      options: [{ title: 'Peso', values: ['5 g'] }],
      variants: [{ title: '5 g', sku: 'WALK-5', options: { Peso: '5 g' }, prices: [{ currency_code: 'uyu', amount: 900 }] }],
    })
    await backend('POST', `/admin/inventory-items/${product.variants[0].inventory_items[0].inventory_item_id}/location-levels`, upstream, {
      location_id: 'sloc_club_walk', stocked_quantity: 10
    })

    // A member is registered with a phone, sets a password, logs in and orders through the store front.
    const registered = (await call('POST', '/api/members', { email: 'mia@walk.test', firstName: 'Mía', lastName: 'Sosa', phone: '+59899111222' }, admin)).json()
    expect((await call('POST', '/auth/customer/emailpass/update', { password: 'mia-password' }, bearer(registered.passwordToken))).statusCode).toBe(200)
    const mia = bearer((await call('POST', '/auth/customer/emailpass', { email: 'mia@walk.test', password: 'mia-password' })).json().token)
    const variant = (await call('GET', '/store/products', undefined, mia)).json().products[0].variants[0]
    const cart = (await call('POST', '/store/carts', {}, mia)).json().cart
    await call('POST', `/store/carts/${cart.id}/line-items`, { variantId: variant.id, quantity: 2 }, mia)
    const options = (await call('GET', `/store/shipping-options?cartId=${cart.id}`, undefined, mia)).json().shippingOptions
    expect(options.map((o: { name: string }) => o.name).sort()).toEqual(['delivery', 'pickup'])
    await call('POST', `/store/carts/${cart.id}/shipping-methods`, { optionId: options.find((o: { name: string }) => o.name === 'pickup').id }, mia)
    await call('POST', `/store/carts/${cart.id}/payment-sessions`, { providerId: 'cash' }, mia)
    const done = await call('POST', `/store/carts/${cart.id}/complete`, undefined, mia)
    expect(done.statusCode, done.body).toBe(200)
    const orders = (await call('GET', '/api/orders', undefined, admin)).json()
    expect(orders.orders).toMatchObject([{ customer: { email: 'mia@walk.test' } }])

    // Her phone is linked with the code the club sends; the club switches to English; the bot answers in English.
    const { text, phone } = (await call('POST', `/api/members/${registered.member.id}/chat-link`, undefined, admin)).json()
    const chat = phone.replace('+', '')
    await say(t, chat, { text })
    expect((await outbox(t, chat)).map((m) => textOf(m.body)).join('\n')).toContain('¡Hola, Mía Sosa! Tu cuenta quedó vinculada.')
    expect((await call('PATCH', '/api/club', { locale: 'en' }, admin)).json().club.locale).toBe('en')
    const seen = (await outbox(t, chat)).length
    await say(t, chat, { text: 'hola' })
    const replies = (await outbox(t, chat)).slice(seen).map((m) => textOf(m.body))
    expect(replies.join('\n')).toContain('Club Walk: what would you like to do?')
    expect(replies.join('\n')).not.toMatch(/No entendí|qué querés/i)
  })
})
