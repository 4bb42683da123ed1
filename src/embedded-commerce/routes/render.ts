import type { CartDoc, CustomerDoc, OrderDoc, ProductDoc } from '../model.ts'
import { cartView } from '../views/cart.ts'
import { orderView } from '../views/order.ts'
import { productView } from '../views/catalog.ts'
import type { CommerceContext } from '../services/context.ts'
import { completedAt } from '../services/carts.ts'
import { listSalesChannels } from '../services/setup.ts'
import { quantityFrom, stockOf } from '../services/catalog.ts'

// Gathers what a view needs besides the record itself (region, customer, channels, stock) and renders it.

export async function renderCart (ctx: CommerceContext, cart: CartDoc) {
  const [region, customer, completed] = await Promise.all([
    ctx.store.get('region', cart.region_id),
    cart.customer_id ? ctx.store.get('customer', cart.customer_id) : undefined,
    completedAt(ctx, cart.id),
  ])
  return cartView(cart, region?.doc, customer?.doc, completed)
}

export async function renderOrders (ctx: CommerceContext, orders: readonly OrderDoc[]) {
  const customerIds = [...new Set(orders.flatMap((o) => o.customer_id ? [o.customer_id] : []))]
  const customers = new Map((await ctx.store.getMany('customer', customerIds)).map((c) => [c.doc.id, c.doc] as [string, CustomerDoc]))
  return orders.map((o) => orderView(o, o.customer_id ? customers.get(o.customer_id) : undefined))
}

export async function renderOrder (ctx: CommerceContext, order: OrderDoc) {
  return (await renderOrders(ctx, [order]))[0]
}

/** Products with their channels, `inventory_quantity` at `locationIds` (all when undefined) and prices in `currencyCode`. */
export async function renderProducts (
  ctx: CommerceContext, products: readonly ProductDoc[], locationIds: readonly string[] | undefined, currencyCode: string | undefined
) {
  const [channels, stock] = await Promise.all([listSalesChannels(ctx), stockOf(ctx, products)])
  const inventoryQuantity = quantityFrom(stock, locationIds)
  return products.map((p) => productView(p, channels.filter((c) => p.sales_channel_ids.includes(c.id)), { inventoryQuantity, currencyCode }))
}
