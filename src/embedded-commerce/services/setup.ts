import type { ApiKeyDoc, RegionDoc, SalesChannelDoc, ShippingOptionDoc, StockLocationDoc } from '../model.ts'
import { notAllowed, notFound, type MedusaError } from '../errors.ts'
import { INDEX, LOOKUP, score, type CommerceContext } from './context.ts'
import { listDocs, loadDoc, lookupFixed } from './repo.ts'

// Regions, sales channels, publishable keys, stock locations and shipping options: a club's commerce setup.

const regionMissing = (id: string): MedusaError => notFound(`Region with id: ${id} was not found`)

export async function createRegion (ctx: CommerceContext, region: RegionDoc): Promise<boolean> {
  return await ctx.store.create('region', region, [{ index: INDEX.regions, score: score(region.created_at) }], [])
}

export async function createSalesChannel (ctx: CommerceContext, channel: SalesChannelDoc): Promise<boolean> {
  return await ctx.store.create('sales_channel', channel, [{ index: INDEX.salesChannels, score: score(channel.created_at) }], [])
}

export async function createApiKey (ctx: CommerceContext, key: ApiKeyDoc): Promise<boolean> {
  return await ctx.store.create('api_key', key, [{ index: INDEX.apiKeys, score: score(key.created_at) }], [{ name: LOOKUP.publishableKey, value: key.token }])
}

export async function createStockLocation (ctx: CommerceContext, location: StockLocationDoc): Promise<boolean> {
  return await ctx.store.create('stock_location', location, [{ index: INDEX.stockLocations, score: score(location.created_at) }], [])
}

export async function createShippingOption (ctx: CommerceContext, option: ShippingOptionDoc): Promise<boolean> {
  return await ctx.store.create('shipping_option', option, [{ index: INDEX.shippingOptions, score: score(option.created_at) }], [])
}

export const getRegion = async (ctx: CommerceContext, id: string): Promise<RegionDoc> => await loadDoc(ctx.store, 'region', id, () => regionMissing(id))
export const listRegions = async (ctx: CommerceContext): Promise<RegionDoc[]> => await listDocs(ctx.store, 'region', INDEX.regions)
export const listSalesChannels = async (ctx: CommerceContext): Promise<SalesChannelDoc[]> => await listDocs(ctx.store, 'sales_channel', INDEX.salesChannels)
export const listApiKeys = async (ctx: CommerceContext): Promise<ApiKeyDoc[]> => await listDocs(ctx.store, 'api_key', INDEX.apiKeys)
export const listStockLocations = async (ctx: CommerceContext): Promise<StockLocationDoc[]> => await listDocs(ctx.store, 'stock_location', INDEX.stockLocations)
export const listShippingOptions = async (ctx: CommerceContext): Promise<ShippingOptionDoc[]> =>
  await listDocs(ctx.store, 'shipping_option', INDEX.shippingOptions)

/** The sales channels a publishable key opens; a missing, unknown or revoked key is 400 not_allowed. */
export async function channelsOfKey (ctx: CommerceContext, token: string | undefined): Promise<string[]> {
  if (!token) {
    throw notAllowed('Publishable API key required in the request header: x-publishable-api-key. You can manage your keys in settings in the dashboard.')
  }
  const id = await lookupFixed(ctx.store, LOOKUP.publishableKey, token)
  const key = id ? (await ctx.store.get('api_key', id))?.doc : undefined
  if (!key || key.revoked_at || key.sales_channel_ids.length === 0) {
    throw notAllowed('A valid publishable key is required to proceed with the request')
  }
  return key.sales_channel_ids
}

/** The club (tenant id) that owns a sales channel, from the channel's metadata. */
export function tenantOf (channel: SalesChannelDoc | undefined): string | undefined {
  const tenant = channel?.metadata?.tenant_id
  return typeof tenant === 'string' ? tenant : undefined
}

export async function locationsOfChannel (ctx: CommerceContext, salesChannelId: string): Promise<StockLocationDoc[]> {
  return (await listStockLocations(ctx)).filter((l) => l.sales_channel_ids.includes(salesChannelId))
}

/** The sales channels whose club is one of `tenants`: what a staff user may see and act on. */
export async function channelsOfTenants (ctx: CommerceContext, tenants: readonly string[]): Promise<SalesChannelDoc[]> {
  return (await listSalesChannels(ctx)).filter((c) => {
    const tenant = tenantOf(c)
    return tenant !== undefined && tenants.includes(tenant)
  })
}
