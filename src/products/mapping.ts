import type { UpstreamAdminProduct } from '../commerce/upstream.ts'
import { dosageOf } from '../dispensing/dosage.ts'

// The club's products as its commerce backend keeps them, in the API's shape. Pure.
//
// Where a product keeps what the club needs beside Medusa's own fields (docs/batches.md, "Products"):
// variant grams per unit as the dispensing rules read them (dosageOf: `metadata.grams`, else Medusa's `weight`;
// none: not a controlled product: papers, a grinder);
// product `metadata.strain_id` the strain it comes from; product `metadata.archived_at` when it was archived.

export interface ProductVariant {
  id: string
  title: string
  sku: string | null
  gramsPerUnit: number | null
  price: number | null
  inventoryItemId: string | null
}

export interface Product {
  id: string
  title: string
  description: string | null
  status: 'published' | 'draft' | 'archived'
  strainId: string | null
  variants: ProductVariant[]
  createdAt: string | null
}

const rankOf = (v: Record<string, unknown>): number => typeof v.variant_rank === 'number' ? v.variant_rank : 0

export function mapProduct (p: UpstreamAdminProduct, currency: string): Product {
  const archived = typeof p.metadata?.archived_at === 'string'
  return {
    id: p.id,
    title: p.title ?? '',
    description: p.description ?? null,
    status: archived ? 'archived' : p.status === 'published' ? 'published' : 'draft',
    strainId: typeof p.metadata?.strain_id === 'string' ? p.metadata.strain_id : null,
    variants: [...p.variants ?? []].sort((a, b) => rankOf(a) - rankOf(b)).map((v) => ({
      id: v.id,
      title: v.title ?? '',
      sku: v.sku ?? null,
      gramsPerUnit: dosageOf({ weight: typeof v.weight === 'number' ? v.weight : null, metadata: v.metadata }).grams,
      price: v.prices?.find((pr) => pr.currency_code?.toLowerCase() === currency)?.amount ?? null,
      inventoryItemId: v.inventory_items?.[0]?.inventory_item_id ?? null,
    })),
    createdAt: p.created_at ?? null,
  }
}

/** Whether the product is sold in this sales channel (one Medusa serves several clubs). */
export const soldIn = (p: UpstreamAdminProduct, salesChannelId: string): boolean => (p.sales_channels ?? []).some((c) => c.id === salesChannelId)
