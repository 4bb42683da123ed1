import { totals } from '../calc.ts'
import type { CartDoc, CustomerDoc, LineItem, RegionDoc } from '../model.ts'
import { cartAddressView, cartTotalsView, regionView } from './common.ts'
import { collectionView } from './payments.ts'

export function lineItemView (item: LineItem) {
  return {
    id: item.id,
    thumbnail: item.thumbnail,
    variant_id: item.variant_id,
    product_id: item.product_id,
    is_giftcard: false,
    product_type_id: null,
    product_title: item.product_title,
    product_description: item.product_description,
    product_subtitle: item.product_subtitle,
    product_type: null,
    product_collection: null,
    product_handle: item.product_handle,
    variant_sku: item.variant_sku,
    variant_barcode: null,
    variant_title: item.variant_title,
    requires_shipping: item.requires_shipping,
    metadata: item.metadata,
    created_at: item.created_at,
    updated_at: item.updated_at,
    title: item.title,
    subtitle: item.subtitle,
    quantity: item.quantity,
    unit_price: item.unit_price,
    compare_at_unit_price: null,
    is_tax_inclusive: false,
    tax_lines: [],
    adjustments: [],
    subtotal: item.unit_price * item.quantity,
    total: item.unit_price * item.quantity,
    product: { id: item.product_id, collection_id: null, type_id: null, categories: [], tags: [] },
  }
}

export function cartView (cart: CartDoc, region: RegionDoc | undefined, customer: CustomerDoc | undefined, completedAt: string | null) {
  return {
    id: cart.id,
    currency_code: cart.currency_code,
    email: cart.email,
    locale: null,
    region_id: cart.region_id,
    created_at: cart.created_at,
    updated_at: cart.updated_at,
    completed_at: completedAt,
    ...cartTotalsView(totals(cart.items, cart.shipping_methods)),
    metadata: cart.metadata,
    sales_channel_id: cart.sales_channel_id,
    shipping_address_id: cart.shipping_address?.id ?? null,
    billing_address_id: cart.billing_address?.id ?? null,
    customer_id: cart.customer_id,
    items: cart.items.map(lineItemView),
    shipping_methods: cart.shipping_methods.map((m) => ({
      id: m.id, name: m.name, amount: m.amount, is_tax_inclusive: false, shipping_option_id: m.shipping_option_id, tax_lines: [], adjustments: [],
    })),
    shipping_address: cartAddressView(cart.shipping_address),
    billing_address: cartAddressView(cart.billing_address),
    credit_lines: [],
    customer: customer ? { id: customer.id, email: customer.email, groups: [] } : null,
    region: region ? regionView(region) : null,
    promotions: [],
    ...(cart.payment_collection ? { payment_collection: collectionView(cart.payment_collection, false) } : {}),
  }
}
