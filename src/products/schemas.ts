import { z } from 'zod'
import { idString } from '../crops/requests.ts'
import { pageQuery } from '../schemas/common.ts'

// What the product routes accept and answer.

const title = z.string().trim().min(1, 'Required').max(200)
/** Grams one unit holds; null: not a controlled product (papers, a grinder). */
const gramsPerUnit = z.number().positive('Must be more than 0').max(1000, 'At most 1000 g a unit').nullable()
/** In the club's currency, in the backend's units (whole ARS in the demo). */
const price = z.number().int('Must be a whole number').min(0).max(1_000_000_000)
const sku = z.string().trim().min(1).max(100)

export const productParams = z.object({ productId: idString })
export const listProductsQuery = pageQuery(50)

export const createProductBody = z.object({
  title,
  description: z.string().max(2000).optional(),
  strain: idString.optional(),
  status: z.enum(['published', 'draft']).default('published'),
  variants: z.array(z.object({ title, sku: sku.optional(), gramsPerUnit: gramsPerUnit.default(null), price }))
    .min(1, 'At least one variant').max(20)
    .refine((vs) => new Set(vs.map((v) => v.title)).size === vs.length, 'Variant titles must differ'),
})
export type CreateProductInput = z.infer<typeof createProductBody>

export const patchProductBody = z.object({
  title: title.optional(),
  description: z.string().max(2000).nullable().optional(),
  strain: idString.nullable().optional(),
  status: z.enum(['published', 'draft']).optional(),
  variants: z.array(
    z.object({ id: idString, title: title.optional(), sku: sku.nullable().optional(), gramsPerUnit: gramsPerUnit.optional(), price: price.optional() })
  )
    .max(20).optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send at least one of title, description, strain, status, variants' })
export type PatchProductInput = z.infer<typeof patchProductBody>

const variantSchema = z.object({
  id: z.string(),
  title: z.string(),
  sku: z.string().nullable(),
  gramsPerUnit: z.number().nullable(),
  price: z.number().nullable(),
  inventoryItemId: z.string().nullable(),
})
const productSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(['published', 'draft', 'archived']),
  strainId: z.string().nullable(),
  variants: z.array(variantSchema),
  createdAt: z.string().nullable(),
})

export const productResponses = {
  list: z.object({ products: z.array(productSchema), count: z.number(), limit: z.number(), offset: z.number() }),
  one: z.object({ product: productSchema }),
}
