import type {
  ApiKeyDoc, InventoryItemDoc, ProductDoc, ProductOption, SalesChannelDoc, ShippingOptionDoc, StockLevel, StockLocationDoc, VariantDoc,
} from '../model.ts'

const NO_DIMENSIONS = { weight: null, length: null, height: null, width: null, hs_code: null, origin_country: null, mid_code: null, material: null }

export function salesChannelView (sc: SalesChannelDoc) {
  return {
    id: sc.id,
    name: sc.name,
    description: sc.description,
    is_disabled: sc.is_disabled,
    metadata: sc.metadata,
    created_at: sc.created_at,
    updated_at: sc.updated_at,
    deleted_at: null
  }
}

export function apiKeyView (key: ApiKeyDoc, channels: SalesChannelDoc[]) {
  return {
    id: key.id,
    title: key.title,
    token: key.token,
    redacted: `${key.token.slice(0, 6)}***${key.token.slice(-3)}`,
    type: key.type,
    last_used_at: null,
    created_by: '',
    revoked_by: null,
    revoked_at: key.revoked_at,
    created_at: key.created_at,
    updated_at: key.updated_at,
    deleted_at: null,
    sales_channels: channels.map((c) => ({ id: c.id, name: c.name })),
  }
}

function locationAddressView (location: StockLocationDoc) {
  const a = location.address
  return {
    id: a.id,
    address_1: a.address_1,
    address_2: a.address_2,
    company: a.company,
    city: a.city,
    country_code: a.country_code,
    phone: a.phone,
    province: a.province,
    postal_code: a.postal_code,
    metadata: null,
    created_at: location.created_at,
    updated_at: location.updated_at,
    deleted_at: null,
  }
}

export function stockLocationView (location: StockLocationDoc, channels: SalesChannelDoc[]) {
  return {
    id: location.id,
    name: location.name,
    metadata: location.metadata,
    created_at: location.created_at,
    updated_at: location.updated_at,
    address: locationAddressView(location),
    sales_channels: channels.map(salesChannelView),
    fulfillment_providers: [{ id: 'manual_manual', is_enabled: true }],
  }
}

/** A flat price as Medusa's pricing module reports it. */
function calculatedPrice (priceSetId: string, priceId: string, amount: number, currency: string) {
  const ref = { id: priceId, price_list_id: null, price_list_type: null, min_quantity: null, max_quantity: null }
  return {
    id: priceSetId,
    is_calculated_price_price_list: false,
    is_calculated_price_tax_inclusive: false,
    calculated_amount: amount,
    is_original_price_price_list: false,
    is_original_price_tax_inclusive: false,
    original_amount: amount,
    currency_code: currency,
    calculated_price: ref,
    original_price: ref,
  }
}

export function shippingOptionView (option: ShippingOptionDoc, location: StockLocationDoc | undefined) {
  const at = { created_at: option.created_at, updated_at: option.updated_at, deleted_at: null }
  return {
    id: option.id,
    name: option.name,
    price_type: 'flat',
    service_zone_id: option.service_zone_id,
    shipping_profile_id: option.shipping_profile_id,
    provider_id: 'manual_manual',
    data: null,
    metadata: option.metadata,
    ...at,
    service_zone: {
      id: option.service_zone_id,
      fulfillment_set_id: option.fulfillment_set_id,
      fulfillment_set: {
        id: option.fulfillment_set_id,
        type: 'shipping',
        location: location ? { id: location.id, address: locationAddressView(location) } : null,
      },
    },
    type: option.type,
    provider: { id: 'manual_manual', is_enabled: true },
    rules: [
      { attribute: 'enabled_in_store', value: 'true', operator: 'eq' },
      { attribute: 'is_return', value: 'false', operator: 'eq' },
    ],
    calculated_price: calculatedPrice(option.price_set_id, option.price_id, option.amount, option.currency_code),
    prices: [{
      id: option.price_id,
      title: null,
      currency_code: option.currency_code,
      amount: option.amount,
      min_quantity: null,
      max_quantity: null,
      price_set_id: option.price_set_id,
      price_list_id: null,
      price_list: null,
      price_rules: [],
      rules_count: 0,
      ...at
    }],
    amount: option.amount,
    is_tax_inclusive: false,
    insufficient_inventory: false,
  }
}

function optionView (option: ProductOption, at: { created_at: string, updated_at: string }) {
  const stamps = { ...at, deleted_at: null }
  return {
    id: option.id,
    title: option.title,
    is_exclusive: true,
    metadata: null,
    ...stamps,
    values: option.values.map((v) => ({ id: v.id, value: v.value, rank: null, metadata: null, option_id: option.id, ...stamps })),
  }
}

export interface VariantContext {
  /** Available units (stocked minus reserved) at the locations that serve the caller's sales channel. */
  inventoryQuantity: (variant: VariantDoc) => number
  /** The region's currency, when the caller asked for prices in a region. */
  currencyCode: string | undefined
}

function variantView (product: ProductDoc, variant: VariantDoc, ctx: VariantContext) {
  const stamps = { created_at: variant.created_at, updated_at: variant.updated_at, deleted_at: null }
  const optionStamps = { created_at: product.created_at, updated_at: product.updated_at, deleted_at: null }
  const values = product.options.flatMap((o) => o.values.map((v) => ({ option: o, value: v })))
  const price = ctx.currencyCode ? variant.prices.find((p) => p.currency_code === ctx.currencyCode) : undefined
  return {
    id: variant.id,
    title: variant.title,
    sku: variant.sku,
    barcode: null,
    ean: null,
    upc: null,
    allow_backorder: variant.allow_backorder,
    manage_inventory: variant.manage_inventory,
    ...NO_DIMENSIONS,
    weight: variant.weight ?? null,
    metadata: variant.metadata,
    variant_rank: variant.variant_rank,
    thumbnail: null,
    product_id: product.id,
    ...stamps,
    images: [],
    options: variant.option_value_ids.flatMap((id) => {
      const found = values.find((v) => v.value.id === id)
      if (!found) return []
      const { option, value } = found
      return [{
        id: value.id,
        value: value.value,
        rank: null,
        metadata: null,
        option_id: option.id,
        option: { id: option.id, title: option.title, is_exclusive: true, metadata: null, ...optionStamps },
        ...optionStamps,
      }]
    }),
    prices: variant.prices.map((p) => ({
      id: p.id,
      amount: p.amount,
      currency_code: p.currency_code,
      min_quantity: null,
      max_quantity: null,
      variant_id: variant.id,
      rules: {},
      created_at: variant.created_at,
      updated_at: variant.updated_at
    })),
    ...(ctx.currencyCode ? { calculated_price: price ? calculatedPrice(variant.price_set_id, price.id, price.amount, price.currency_code) : null } : {}),
    inventory_quantity: ctx.inventoryQuantity(variant),
    inventory_items: variant.inventory_item_id ? [{ inventory_item_id: variant.inventory_item_id, variant_id: variant.id, required_quantity: 1 }] : [],
  }
}

export function productView (product: ProductDoc, channels: SalesChannelDoc[], ctx: VariantContext) {
  return {
    id: product.id,
    title: product.title,
    subtitle: product.subtitle,
    status: product.status,
    external_id: null,
    description: product.description,
    handle: product.handle,
    is_giftcard: false,
    discountable: true,
    thumbnail: product.thumbnail,
    collection_id: null,
    type_id: null,
    ...NO_DIMENSIONS,
    created_at: product.created_at,
    updated_at: product.updated_at,
    deleted_at: null,
    metadata: product.metadata,
    type: null,
    collection: null,
    options: product.options.map((o) => optionView(o, product)),
    tags: [],
    images: [],
    variants: product.variants.map((v) => variantView(product, v, ctx)),
    sales_channels: channels.map(salesChannelView),
  }
}

export function inventoryItemView (item: InventoryItemDoc, levels: StockLevel[]) {
  const stocked = levels.reduce((s, l) => s + l.stocked_quantity, 0)
  const reserved = levels.reduce((s, l) => s + l.reserved_quantity, 0)
  return {
    id: item.id,
    sku: item.sku,
    title: item.title,
    description: item.description,
    thumbnail: null,
    requires_shipping: item.requires_shipping,
    unit_of_measure: null,
    ...NO_DIMENSIONS,
    metadata: item.metadata,
    reserved_quantity: reserved,
    stocked_quantity: stocked,
    created_at: item.created_at,
    updated_at: item.updated_at,
    location_levels: levels.map((l) => ({
      id: l.id,
      location_id: l.location_id,
      metadata: null,
      inventory_item_id: item.id,
      created_at: l.created_at,
      updated_at: l.updated_at,
      deleted_at: null,
      available_quantity: l.stocked_quantity - l.reserved_quantity,
      stocked_quantity: l.stocked_quantity,
      reserved_quantity: l.reserved_quantity,
      incoming_quantity: 0,
    })),
  }
}
