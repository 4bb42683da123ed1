import { z } from 'zod'
import type { CommerceClient } from '../commerce/client.ts'
import type { CommerceSetup } from './provision.ts'
import { countryName, locationAddress } from '../tenants/spec.ts'

// Provisioning over a real Medusa v2's admin API (2.21). Medusa makes up every id, so each step first looks for
// what an earlier run made by a key of the club's own: the sales channel's and stock location's
// `metadata.tenant_id`, the key linked to the channel, the profile's and options' names.

/** The admin HTTP calls provisioning needs, with an admin token; any non-2xx answer throws. */
export interface AdminHttp {
  get<T> (path: string): Promise<T>
  post<T> (path: string, body?: unknown): Promise<T>
}

interface Id { id: string }
interface WithMetadata extends Id { metadata?: Record<string, unknown> | null }

const LIMIT = 'limit=1000'
const ofClub = (tenantId: string) => (doc: WithMetadata): boolean => doc.metadata?.tenant_id === tenantId

/** `login` is the admin login given to the operator's command: the service calls Medusa with it for the club. */
export function medusaSetup (admin: AdminHttp, login: { adminEmail: string, adminPassword: string, baseUrl: string }): CommerceSetup {
  return {
    async region (spec) {
      // A country belongs to one region only in Medusa: clubs of a country share its region.
      const { regions } = await admin.get<{ regions: Array<Id & { currency_code: string, countries: Array<{ iso_2: string }> }> }>(
        `/admin/regions?fields=id,currency_code,*countries&${LIMIT}`
      )
      const found = regions.find((r) => r.countries.some((c) => c.iso_2 === spec.country))
      if (found) {
        if (found.currency_code !== spec.currency.toLowerCase()) {
          throw new Error(`country ${spec.country} is in region ${found.id}, whose currency is ${found.currency_code}, not ${spec.currency}`)
        }
        return found.id
      }
      const { region } = await admin.post<{ region: Id }>('/admin/regions', {
        name: countryName(spec.country), currency_code: spec.currency.toLowerCase(), countries: [spec.country], payment_providers: ['pp_system_default'],
      })
      return region.id
    },
    async salesChannel (spec, regionId) {
      const { sales_channels: channels } = await admin.get<{ sales_channels: WithMetadata[] }>(`/admin/sales-channels?fields=id,metadata&${LIMIT}`)
      const found = channels.find(ofClub(spec.id))
      if (found) return found.id
      const { sales_channel: channel } = await admin.post<{ sales_channel: Id }>('/admin/sales-channels', {
        name: spec.name, description: spec.id, metadata: { tenant_id: spec.id, default_region_id: regionId },
      })
      return channel.id
    },
    async publishableKey (spec, salesChannelId) {
      const { api_keys: keys } = await admin.get<{ api_keys: Array<Id & { token: string, revoked_at: string | null, sales_channels?: Id[] }> }>(
        `/admin/api-keys?type=publishable&fields=id,token,revoked_at,*sales_channels&${LIMIT}`
      )
      const found = keys.find((k) => !k.revoked_at && k.sales_channels?.some((c) => c.id === salesChannelId))
      if (found) return found.token
      const { api_key: key } = await admin.post<{ api_key: Id & { token: string } }>('/admin/api-keys', {
        title: `${spec.name} storefront`, type: 'publishable'
      })
      await admin.post(`/admin/api-keys/${key.id}/sales-channels`, { add: [salesChannelId] })
      return key.token
    },
    async stockLocation (spec, salesChannelId) {
      type Location = WithMetadata & {
        sales_channels?: Id[], fulfillment_providers?: Id[], fulfillment_sets?: Array<Id & { type: string, service_zones?: Id[] }>
      }
      const fields = 'fields=id,metadata,*sales_channels,*fulfillment_providers,*fulfillment_sets,*fulfillment_sets.service_zones'
      const read = async (id: string) => (await admin.get<{ stock_location: Location }>(`/admin/stock-locations/${id}?${fields}`)).stock_location
      const { stock_locations: locations } = await admin.get<{ stock_locations: Location[] }>(`/admin/stock-locations?fields=id,metadata&${LIMIT}`)
      const id = locations.find(ofClub(spec.id))?.id ?? (await admin.post<{ stock_location: Id }>('/admin/stock-locations', {
        name: `${spec.name} (${spec.id})`, address: locationAddress(spec), metadata: { tenant_id: spec.id },
      })).stock_location.id
      const path = `/admin/stock-locations/${id}`
      let location = await read(id)
      if (!location.sales_channels?.some((c) => c.id === salesChannelId)) await admin.post(`${path}/sales-channels`, { add: [salesChannelId] })
      if (!location.fulfillment_providers?.some((p) => p.id === 'manual_manual')) await admin.post(`${path}/fulfillment-providers`, { add: ['manual_manual'] })
      if (!location.fulfillment_sets?.some((s) => s.type === 'shipping')) {
        await admin.post(`${path}/fulfillment-sets`, { name: `${spec.name} (${spec.id}) shipping`, type: 'shipping' })
        location = await read(id)
      }
      const set = location.fulfillment_sets?.find((s) => s.type === 'shipping')
      if (!set) throw new Error(`stock location ${id} has no shipping fulfillment set`)
      let zoneId = set.service_zones?.[0]?.id
      if (!zoneId) {
        const { fulfillment_set: withZone } = await admin.post<{ fulfillment_set: { service_zones: Id[] } }>(
          `/admin/fulfillment-sets/${set.id}/service-zones`, {
            name: `${spec.name} ${spec.country.toUpperCase()}`, geo_zones: [{ type: 'country', country_code: spec.country }]
          }
        )
        zoneId = withZone.service_zones[0]?.id
      }
      if (!zoneId) throw new Error(`fulfillment set ${set.id} has no service zone`)
      return { stockLocationId: id, fulfillmentSetId: set.id, serviceZoneId: zoneId }
    },
    async shippingProfile (spec) {
      const name = `${spec.id} shipping profile`
      const { shipping_profiles: profiles } = await admin.get<{ shipping_profiles: Array<Id & { name: string }> }>(
        `/admin/shipping-profiles?fields=id,name&${LIMIT}`
      )
      const found = profiles.find((p) => p.name === name)
      if (found) return found.id
      return (await admin.post<{ shipping_profile: Id }>('/admin/shipping-profiles', { name, type: 'default' })).shipping_profile.id
    },
    async shippingOption (spec, where, option) {
      const { shipping_options: options } = await admin.get<{ shipping_options: Array<Id & { name: string }> }>(
        `/admin/shipping-options?service_zone_id=${encodeURIComponent(where.serviceZoneId)}&fields=id,name&${LIMIT}`
      )
      const found = options.find((o) => o.name === option.name)
      if (found) return found.id
      const { shipping_option: created } = await admin.post<{ shipping_option: Id }>('/admin/shipping-options', {
        name: option.name,
        price_type: 'flat',
        service_zone_id: where.serviceZoneId,
        shipping_profile_id: where.shippingProfileId,
        provider_id: 'manual_manual',
        type: { label: option.label, description: option.label, code: option.name },
        prices: [{ currency_code: spec.currency.toLowerCase(), amount: option.amount }],
        rules: [
          { attribute: 'enabled_in_store', operator: 'eq', value: 'true' },
          { attribute: 'is_return', operator: 'eq', value: 'false' },
        ],
      })
      return created.id
    },
    async serviceLogin () {
      return login
    },
  }
}

/** The setup over the service's commerce client, logged in as the operator's Medusa admin. */
export function medusaSetupAt (client: CommerceClient, baseUrl: string, adminEmail: string, adminPassword: string): CommerceSetup {
  const caller = { kind: 'admin' as const, email: adminEmail, password: adminPassword }
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const [pathname = path, search = ''] = path.split('?')
    return await client.call(baseUrl, method, pathname, { caller, query: Object.fromEntries(new URLSearchParams(search)), body, schema: z.any() }) as T
  }
  return medusaSetup({
    get: async (path) =>
      await call('GET', path),
    post: async (path, body) => await call('POST', path, body)
  }, { adminEmail, adminPassword, baseUrl })
}
