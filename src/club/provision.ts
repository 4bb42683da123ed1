import type { CommerceSettings } from '../tenants/model.ts'
import { shippingOptionsOf, type ClubSpec, type ShippingOptionName } from '../tenants/spec.ts'

// A club's commerce side, in the order a Medusa v2 admin builds it: region, sales channel, publishable key,
// stock location (manual fulfillment, a shipping fulfillment set with a service zone on the club's country), a
// shipping profile, the `pickup` and `delivery` options, then the login the service uses at the backend.
// Each step finds what an earlier run made and makes only what is missing, so a run that failed midway is
// finished by running it again. Both backends implement the steps: the embedded one in its store, a real
// Medusa over its admin API.

interface ProvisionedLocation {
  stockLocationId: string
  fulfillmentSetId: string
  serviceZoneId: string
}

export interface CommerceSetup {
  region (spec: ClubSpec): Promise<string>
  salesChannel (spec: ClubSpec, regionId: string): Promise<string>
  /** The key's token. */
  publishableKey (spec: ClubSpec, salesChannelId: string): Promise<string>
  stockLocation (spec: ClubSpec, salesChannelId: string): Promise<ProvisionedLocation>
  shippingProfile (spec: ClubSpec): Promise<string>
  shippingOption (
    spec: ClubSpec, where: ProvisionedLocation & { shippingProfileId: string }, option: { name: ShippingOptionName, label: string, amount: number }
  ): Promise<string>
  /** The admin login the service calls the backend with for this club; `existing` is the one on record, if any. */
  serviceLogin (spec: ClubSpec, existing: CommerceSettings | undefined): Promise<{ adminEmail: string, adminPassword: string, baseUrl?: string }>
}

export interface ProvisionedCommerce {
  settings: CommerceSettings
  location: ProvisionedLocation
  shippingProfileId: string
  shippingOptions: Record<ShippingOptionName, string>
}

/** Runs every step; each reports through `progress` (the CLI prints it). */
export async function provisionCommerce (
  setup: CommerceSetup, spec: ClubSpec, existing?: CommerceSettings, progress: (step: string) => void = () => {}
): Promise<ProvisionedCommerce> {
  const regionId = await setup.region(spec)
  progress(`region ${regionId}`)
  const salesChannelId = await setup.salesChannel(spec, regionId)
  progress(`sales channel ${salesChannelId}`)
  const publishableKey = await setup.publishableKey(spec, salesChannelId)
  progress('publishable key')
  const location = await setup.stockLocation(spec, salesChannelId)
  progress(`stock location ${location.stockLocationId}`)
  const shippingProfileId = await setup.shippingProfile(spec)
  const shippingOptions = {} as Record<ShippingOptionName, string>
  for (const option of shippingOptionsOf(spec)) {
    shippingOptions[option.name] = await setup.shippingOption(spec, { ...location, shippingProfileId }, option)
  }
  progress(`shipping options ${Object.keys(shippingOptions).join(', ')}`)
  const login = await setup.serviceLogin(spec, existing)
  return {
    settings: { ...login, publishableKey, regionId, salesChannelId, stockLocationId: location.stockLocationId },
    location,
    shippingProfileId,
    shippingOptions,
  }
}
