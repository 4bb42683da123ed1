import { randomBytes } from 'node:crypto'
import type { CommerceSetup } from '../club/provision.ts'
import { countryName, locationAddress } from '../tenants/spec.ts'
import { clubSetupIds } from '../tenants/setup-ids.ts'
import { saveUser, setIdentityPassword } from './services/accounts.ts'
import { PAYMENT_PROVIDERS } from './services/carts.ts'
import { nowIso, type CommerceContext } from './services/context.ts'
import { createApiKey, createRegion, createSalesChannel, createShippingOption, createStockLocation } from './services/setup.ts'

// The embedded backend's side of provisioning: each step writes its record with an id derived from the club's
// id unless one is there already (the store's create is insert-if-absent), so a second run changes nothing.

export function embeddedSetup (ctx: CommerceContext): CommerceSetup {
  const stamps = () => {
    const now = nowIso()
    return { created_at: now, updated_at: now }
  }
  return {
    async region (spec) {
      const ids = clubSetupIds(spec.id)
      await createRegion(ctx, {
        id: ids.region,
        name: `${countryName(spec.country)} (${spec.name})`,
        currency_code: spec.currency.toLowerCase(),
        countries: [spec.country],
        payment_providers: [...PAYMENT_PROVIDERS],
        automatic_taxes: true,
        metadata: { tenant_id: spec.id },
        ...stamps(),
      })
      return ids.region
    },
    async salesChannel (spec, regionId) {
      const id = clubSetupIds(spec.id).salesChannel
      await createSalesChannel(ctx, {
        id, name: spec.name, description: spec.id, is_disabled: false, metadata: { tenant_id: spec.id, default_region_id: regionId }, ...stamps()
      })
      return id
    },
    async publishableKey (spec, salesChannelId) {
      const ids = clubSetupIds(spec.id)
      await createApiKey(ctx, {
        id: ids.apiKey,
        token: ids.publishableKey,
        title: `${spec.name} storefront`,
        type: 'publishable',
        sales_channel_ids: [salesChannelId],
        revoked_at: null,
        ...stamps()
      })
      return ids.publishableKey
    },
    async stockLocation (spec, salesChannelId) {
      const ids = clubSetupIds(spec.id)
      const address = locationAddress(spec)
      await createStockLocation(ctx, {
        id: ids.stockLocation,
        name: `${spec.name} (${spec.id})`,
        address: { id: ids.locationAddress, first_name: null, last_name: null, company: null, address_2: null, phone: null, ...address },
        sales_channel_ids: [salesChannelId],
        metadata: { tenant_id: spec.id },
        ...stamps(),
      })
      // The embedded backend has one manual fulfillment provider and keeps no separate set or zone records.
      return { stockLocationId: ids.stockLocation, fulfillmentSetId: ids.fulfillmentSet, serviceZoneId: ids.serviceZone }
    },
    async shippingProfile (spec) {
      return clubSetupIds(spec.id).shippingProfile
    },
    async shippingOption (spec, where, option) {
      const ids = clubSetupIds(spec.id)
      const id = ids.shippingOption(option.name)
      const code = spec.id.replace(/-/g, '_')
      await createShippingOption(ctx, {
        id,
        name: option.name,
        amount: option.amount,
        currency_code: spec.currency.toLowerCase(),
        stock_location_id: where.stockLocationId,
        service_zone_id: where.serviceZoneId,
        fulfillment_set_id: where.fulfillmentSetId,
        shipping_profile_id: where.shippingProfileId,
        price_set_id: `pset_${code}_${option.name}`,
        price_id: `price_${code}_${option.name}`,
        type: { id: `sotype_${code}_${option.name}`, label: option.label, description: option.label, code: option.name },
        metadata: null,
        ...stamps(),
      })
      return id
    },
    async serviceLogin (spec, existing) {
      const ids = clubSetupIds(spec.id)
      const adminEmail = `service+${spec.id}@club-service.invalid`
      if (existing) return { adminEmail: existing.adminEmail, adminPassword: existing.adminPassword }
      // A user of the club's own for the service's admin calls. A run that failed before the tenant record was
      // written lost its password, so each new record gets a fresh one.
      const adminPassword = randomBytes(24).toString('base64url')
      await saveUser(ctx, {
        id: ids.serviceUser,
        email: adminEmail,
        first_name: 'Club service',
        last_name: spec.name,
        role: 'admin',
        tenants: [spec.id],
        metadata: { service: true },
        ...stamps()
      })
      await setIdentityPassword(ctx, 'user', adminEmail, adminPassword, ids.serviceUser)
      return { adminEmail, adminPassword }
    },
  }
}
