import { z } from 'zod'
import { dateInput } from '../crops/requests.ts'
import { pageQuery } from '../schemas/common.ts'
import { BATCH_STATUSES } from './model.ts'

// What the batch routes accept and answer. Validation here; decisions in service.ts.

const timestamp = z.string().meta({ format: 'date-time' })

const batchNumber = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'Must be 1 to 64 letters, digits, "_", "." or "-"')
export const batchParams = z.object({ batchNumber })

const percent = z.number().min(0, 'Must be at least 0').max(100, 'Must be at most 100')

export const listBatchesQuery = pageQuery(50).extend({
  status: z.enum(BATCH_STATUSES).optional(),
  strain: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/).optional(),
  minGramsAvailable: z.coerce.number().min(0).max(10_000_000).optional(),
})

export const labBody = z.object({
  thcPercent: percent,
  cbdPercent: percent,
  reportRef: z.string().trim().min(1, 'Required').max(200),
  testedAt: dateInput.optional(),
})

export const patchBatchBody = z.object({ bestBefore: dateInput })

export const packageBody = z.object({
  variantId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'Must be a variant id'),
  units: z.number().int('Must be a whole number').positive('Must be at least 1').max(100_000),
})

export const stockReportQuery = z.object({ year: z.coerce.number().int().min(2000).max(2100) })

export const recallBody = z.object({ reason: z.string().trim().min(1, 'Required').max(500) })

export const destroyBody = z.object({
  grams: z.number().positive('Must be more than 0').max(10_000_000),
  reason: z.string().trim().min(1, 'Required').max(500),
})

const actorRef = z.object({ id: z.string(), name: z.string() })
const labSchema = z.object({
  thcPercent: z.number(), cbdPercent: z.number(), reportRef: z.string(), testedAt: timestamp, recordedAt: timestamp, recordedBy: actorRef
})
const strainRef = z.object({ id: z.string(), name: z.string() })

const stockFigures = z.object({
  batches: z.number(),
  harvestedDry: z.number(),
  packaged: z.number(),
  dispensed: z.number(),
  destroyed: z.number(),
  withdrawn: z.number(),
  onHand: z.number(),
  difference: z.number().meta({ description: 'harvestedDry - dispensed - destroyed - withdrawn - onHand: 0 when the books balance, shown whatever it is' }),
})

export const batchSummarySchema = z.object({
  batchNumber: z.string(),
  cropId: z.string(),
  strain: strainRef,
  status: z.enum(BATCH_STATUSES),
  harvestedAt: timestamp,
  bestBefore: timestamp,
  gramsHarvested: z.number(),
  gramsAvailable: z.number().meta({ description: 'Not yet packaged nor destroyed' }),
  gramsOnHand: z.number().meta({ description: 'Available plus the units of the batch still on the shelf' }),
  lab: z.object({ thcPercent: z.number(), cbdPercent: z.number() }).nullable(),
})

export const batchSchema = batchSummarySchema.extend({
  harvestId: z.string(),
  grams: z.object({
    harvested: z.number(),
    available: z.number(),
    packaged: z.number(),
    onShelf: z.number(),
    dispensed: z.number(),
    destroyed: z.number(),
    withdrawn: z.number().meta({ description: 'Units taken off sale by a recall, in grams' }),
    onHand: z.number(),
  }),
  lab: labSchema.nullable(),
  labHistory: z.array(labSchema),
  packaged: z.array(z.object({
    variantId: z.string(),
    productId: z.string().nullable(),
    title: z.string(),
    gramsPerUnit: z.number(),
    units: z.number(),
    dispensedUnits: z.number(),
    withdrawnUnits: z.number(),
    remainingUnits: z.number(),
  })),
  packagings: z.array(
    z.object({ id: z.string(), variantId: z.string(), units: z.number(), grams: z.number(), state: z.enum(['pending', 'done']), at: timestamp, by: actorRef })
  ),
  destructions: z.array(z.object({ id: z.string(), grams: z.number(), reason: z.string(), at: timestamp, by: actorRef })),
  dispensations: z.array(z.object({
    id: z.string(),
    orderId: z.string(),
    memberId: z.string(),
    variantId: z.string(),
    units: z.number(),
    grams: z.number(),
    at: timestamp,
    entryId: z.string().nullable(),
    reversedAt: timestamp.nullable(),
  })),
  recall: z.object({
    reason: z.string(),
    at: timestamp,
    by: actorRef,
    unitsWithdrawn: z.number(),
    offSale: z.literal('stock-to-zero'),
    stock: z.array(z.object({ variantId: z.string(), units: z.number(), done: z.boolean() })),
    dispensationIds: z.array(z.string()),
    membersNotified: z.number(),
  }).nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
})

export const batchResponses = {
  list: z.object({ batches: z.array(batchSummarySchema), count: z.number(), limit: z.number(), offset: z.number() }),
  one: z.object({ batch: batchSchema }),
  stockReport: z.object({
    year: z.number(),
    strains: z.array(z.object({ strain: strainRef }).extend(stockFigures.shape)),
    totals: stockFigures,
  }),
  recalled: z.object({
    batch: batchSchema,
    affected: z.array(z.object({
      dispensationId: z.string(), orderId: z.string(), memberId: z.string(), variantId: z.string(), units: z.number(), grams: z.number(), at: timestamp,
    })),
  }),
  packaged: z.object({
    batch: batchSchema,
    packaging: z.object({ id: z.string(), variantId: z.string(), units: z.number(), grams: z.number() }),
    stocked: z.number().meta({ description: 'Units of the variant now stocked at the club\'s location' }),
  }),
}
