import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUpstreamSessionStore } from '../../src/commerce/sessions.ts'
import { medusaSetupAt } from '../../src/club/medusa-setup.ts'
import { createOneUseTokens } from '../../src/club/one-use-tokens.ts'
import { createClub, updateClub, type OperatorDeps } from '../../src/club/operator.ts'
import { StaffService } from '../../src/club/staff.ts'
import { embeddedSetup } from '../../src/embedded-commerce/provision.ts'
import { createCommerceStore } from '../../src/embedded-commerce/store/index.ts'
import { CommerceClient } from '../../src/commerce/client.ts'
import { commerceAccessAt } from '../../src/commerce/access.ts'
import { parseTenantsFile } from '../../src/commerce/settings.ts'
import type { TestApp } from '../helper.ts'
import { contractBackend } from './backend.ts'

// Putting a club into service, the same scenario on either backend: provisioning (twice: the second run makes
// nothing), the first admin's invite, staff and members through the service's API, and the new club's store.

const backend = contractBackend()
const run = `${Date.now().toString(36)}`

describe(`club provisioning contract against the ${backend.name} commerce backend`, { timeout: backend.timeoutMs }, () => {
  let t: TestApp
  let deps: OperatorDeps
  const client = new CommerceClient(30_000)
  const id = `club-c${run}`
  const email = (who: string) => `${who}.${run}@contract.test`

  beforeAll(async () => {
    t = await backend.build()
    const access = commerceAccessAt(t.app.commerceUrl, client, createUpstreamSessionStore(t.redis))
    let setup
    if (backend.name === 'medusa') {
      // The operator's Medusa admin login: the one the seed wrote for the demo clubs.
      const login = Object.values(parseTenantsFile(readFileSync(process.env.COMMERCE_TENANTS_FILE ?? '', 'utf8')))[0]
      if (!login) throw new Error('the tenants file names no club')
      setup = medusaSetupAt(client, t.app.commerceUrl, login.adminEmail, login.adminPassword)
    } else {
      setup = embeddedSetup({ store: createCommerceStore(t.redis), jwtSecret: t.config.jwtSecret })
    }
    deps = {
      tenants: t.app.tenants, setup, staff: new StaffService({ tenants: t.app.tenants, access, tokens: createOneUseTokens(t.redis) }), progress: () => {}
    }
  })
  afterAll(async () => {
    await client.close()
    await t.close()
  })

  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) =>
    await t.app.inject({ method, url, headers: { 'tenant-id': id, ...headers }, ...(payload ? { payload } : {}) })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const loginAs = async (actor: 'user' | 'customer', who: string, password: string) => {
    const res = await call('POST', `/auth/${actor}/emailpass`, {}, { email: email(who), password })
    expect(res.statusCode, res.body).toBe(200)
    return bearer(res.json().token)
  }

  it('provisions a club, then finds everything again; its admin, staff and members come through the API', async () => {
    const spec = { id, name: `Contract ${run}`, pickup: { address: 'Av. Corrientes 1234', hours: '10-18' }, deliveryPrice: 700 }
    const first = await createClub(deps, spec, { email: email('admin'), name: 'Contract Admin' })
    const again = await updateClub(deps, id, {})
    expect(again.changed).toEqual([])
    expect(again.tenant.commerce).toEqual(first.tenant.commerce)

    expect((await call('POST', '/api/staff/invites/accept', {}, { token: first.invite?.token, password: 'admin-password' })).statusCode).toBe(201)
    const admin = await loginAs('user', 'admin', 'admin-password')

    const invited = await call('POST', '/api/staff', admin, { email: email('grower'), name: 'Contract Grower', role: 'grower' })
    expect(invited.statusCode, invited.body).toBe(201)
    const accepted = await call('POST', '/api/staff/invites/accept', {}, { token: invited.json().token, password: 'grower-password' })
    expect(accepted.statusCode, accepted.body).toBe(201)
    expect((await call('POST', '/api/staff/invites/accept', {}, { token: invited.json().token, password: 'grower-password' })).statusCode).toBe(401)
    const grower = await loginAs('user', 'grower', 'grower-password')
    expect((await call('GET', '/api/staff', grower)).statusCode).toBe(403)
    const staffId = accepted.json().staff.id as string
    expect((await call('PATCH', `/api/staff/${staffId}`, admin, { role: 'admin' })).json().staff.role).toBe('admin')
    expect((await call('DELETE', `/api/staff/${staffId}`, admin)).statusCode).toBe(204)

    const registered = await call('POST', '/api/members', admin, { email: email('member'), firstName: 'Contract', lastName: 'Member', phone: '+5491100000000' })
    expect(registered.statusCode, registered.body).toBe(201)
    expect((await call('POST', '/api/members', admin, { email: email('member'), firstName: 'Again', lastName: 'Member' })).statusCode).toBe(409)
    const set = await call('POST', '/auth/customer/emailpass/update', bearer(registered.json().passwordToken), { password: 'member-password' })
    expect(set.statusCode, set.body).toBe(200)
    const member = await loginAs('customer', 'member', 'member-password')
    const listed = await call('GET', `/api/members?q=${encodeURIComponent(email('member'))}`, admin)
    expect(listed.json().members).toMatchObject([{ email: email('member'), firstName: 'Contract', hasAccount: true }])

    // The new club's store: its cart is offered its own two shipping options.
    const cart = await call('POST', '/store/carts', member, {})
    expect(cart.statusCode, cart.body).toBe(200)
    const options = (await call('GET', `/store/shipping-options?cartId=${cart.json().cart.id}`, member)).json().shippingOptions
    expect(options.map((o: { name: string }) => o.name).sort()).toEqual(['delivery', 'pickup'])
  })
})
