import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClub, updateClub, type OperatorDeps } from '../../src/club/operator.ts'
import type { CommerceSetup } from '../../src/club/provision.ts'
import { clubSpecSchema, type ClubSpecInput } from '../../src/tenants/spec.ts'
import { StaffService } from '../../src/club/staff.ts'
import { embeddedSetup } from '../../src/embedded-commerce/provision.ts'
import { listApiKeys, listRegions, listSalesChannels, listShippingOptions, listStockLocations } from '../../src/embedded-commerce/services/setup.ts'
import { createCommerceStore } from '../../src/embedded-commerce/store/index.ts'
import type { CommerceContext } from '../../src/embedded-commerce/services/context.ts'
import { createUpstreamSessionStore } from '../../src/commerce/sessions.ts'
import { createOneUseTokens } from '../../src/club/one-use-tokens.ts'
import { CommerceClient } from '../../src/commerce/client.ts'
import { commerceAccessAt } from '../../src/commerce/access.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Provisioning on the embedded backend of a real app (its Redis), with a backend that fails once midway.

describe('provisioning a club', () => {
  let t: TestApp
  let ctx: CommerceContext
  const client = new CommerceClient(5_000)
  beforeAll(async () => {
    t = await buildTestApp({ env: { SEED: 'none' } })
    ctx = { store: createCommerceStore(t.redis), jwtSecret: t.config.jwtSecret }
  })
  afterAll(async () => {
    await client.close()
    await t.close()
  })

  /** The embedded setup, failing the first time `step` runs (a backend that broke midway). */
  const failingOnce = (step: keyof CommerceSetup): CommerceSetup => {
    const setup = embeddedSetup(ctx)
    let failed = false
    return {
      ...setup,
      [step]: async (...args: unknown[]) => {
        if (!failed) {
          failed = true
          throw new Error(`backend failed at ${step}`)
        }
        return await (setup[step] as (...a: unknown[]) => Promise<unknown>)(...args)
      },
    }
  }

  const deps = (setup: CommerceSetup): OperatorDeps => ({
    tenants: t.app.tenants,
    setup,
    staff: new StaffService({
      tenants: t.app.tenants, access: commerceAccessAt(t.app.commerceUrl, client, createUpstreamSessionStore(null)), tokens: createOneUseTokens(null)
    }),
    progress: () => {},
  })

  it('a create that failed midway leaves no club; running it again finishes it, with each part made once', async () => {
    const setup = failingOnce('stockLocation')
    const spec = { id: 'club-mitad', name: 'Club Mitad', pickup: { address: 'Calle 1', hours: '9-18' } }
    await expect(createClub(deps(setup), spec, { email: 'ada@mitad.test', name: 'Ada' })).rejects.toThrow('backend failed at stockLocation')
    expect(await t.app.tenants.get('club-mitad')).toBeUndefined()
    expect((await listSalesChannels(ctx)).filter((c) => c.metadata?.tenant_id === 'club-mitad')).toHaveLength(1)

    const done = await createClub(deps(setup), spec, { email: 'ada@mitad.test', name: 'Ada' })
    expect(done.tenant).toMatchObject({ id: 'club-mitad', commerce: { stockLocationId: 'sloc_club_mitad', publishableKey: 'pk_club_mitad' } })
    const count = async () => [
      (await listRegions(ctx)).length, (await listSalesChannels(ctx)).length, (await listApiKeys(ctx)).length,
      (await listStockLocations(ctx)).length, (await listShippingOptions(ctx)).length,
    ]
    expect(await count()).toEqual([1, 1, 1, 1, 2])

    // Again, as update: nothing upstream is made twice and nothing in the record changes.
    const again = await updateClub(deps(embeddedSetup(ctx)), 'club-mitad', {})
    expect(again.changed).toEqual([])
    expect(await count()).toEqual([1, 1, 1, 1, 2])
    const renamed = await updateClub(deps(embeddedSetup(ctx)), 'club-mitad', { name: 'Club Entero', locale: 'en' })
    expect(renamed.changed.sort()).toEqual(['locale', 'name'])
    expect(await t.app.tenants.get('club-mitad')).toMatchObject({ name: 'Club Entero', locale: 'en', commerce: done.tenant.commerce })
  })

  it('refuses an admin email already staff of another club (409) and an existing club id (409), before anything is made', async () => {
    await t.app.tenants.putStaff({ id: 'user_x', email: 'x@otro.test', name: 'X', role: 'admin', tenants: ['club-otro'] })
    await expect(
      createClub(deps(embeddedSetup(ctx)), { id: 'club-nuevo', name: 'Nuevo' }, { email: 'X@otro.test'.toLowerCase(), name: 'X' })
    ).rejects.toMatchObject({ statusCode: 409 })
    expect((await listSalesChannels(ctx)).map((c) => c.id)).not.toContain('sc_club_nuevo')
    await expect(createClub(deps(embeddedSetup(ctx)), { id: 'club-mitad', name: 'Otra vez' }, { email: 'y@mitad.test', name: 'Y' })).rejects.toMatchObject({
      statusCode: 409
    })
    expect((await t.app.tenants.get('club-mitad'))?.name).toBe('Club Entero')
  })

  it('refuses a bad spec before anything is made', async () => {
    const bads: Array<Record<string, string>> = [{ timeZone: 'ART' }, { locale: 'pt' }, { id: 'Club Mayúsculas' }, { currency: 'pesos' }]
    for (const bad of bads) {
      await expect(
        createClub(deps(embeddedSetup(ctx)), { id: 'club-mala', name: 'Mala', ...bad } as ClubSpecInput, { email: 'x@mala.test', name: 'X' })
      ).rejects.toMatchObject({ statusCode: 400 })
    }
    expect((await listSalesChannels(ctx)).map((c) => c.id)).not.toContain('sc_club_mala')
    expect(clubSpecSchema.safeParse({ id: 'club-ok', name: 'Ok', timeZone: 'asia/kolkata' }).data?.timeZone).toBe('Asia/Kolkata')
  })
})
