import { z } from 'zod'
import { allStatuses } from '../../machines/crop.machine.ts'
import { errorEnvelopeSchema } from '../schemas/common.ts'
import { HARVEST_QUALITIES, HARVEST_STATUSES, PLANT_INTERACTIONS } from './model.ts'

// What the crop and catalog routes answer (spec, Crops). They also document /openapi.json.

const cropStatus = z.enum(allStatuses)
const timestamp = z.string().meta({ format: 'date-time' })

const strainRef = z.object({ id: z.string(), name: z.string() })
const strainSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  cannabinoids: z.object({ thc: z.number(), cbd: z.number() }),
})
const spaceRef = z.object({ id: z.string(), name: z.string() })
const spaceSchema = spaceRef.extend({ squareMeters: z.number(), status: z.string() })
const lightSchema = z.object({ id: z.string(), name: z.string(), type: z.string() })

const authorSchema = z.object({ id: z.string(), name: z.string(), email: z.string().optional() })

const timelineEntrySchema = z.object({
  type: z.enum(PLANT_INTERACTIONS),
  date: timestamp,
  data: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]),
  notes: z.string(),
  evidences: z.array(z.string()),
  author: authorSchema,
})

const statusHistorySchema = z.array(z.object({ status: cropStatus, start: timestamp, end: z.string() }))

const potSchema = z.object({
  milliliters: z.number(),
  substrate: z.array(z.object({ type: z.string(), percentage: z.number() })),
})

export const cropSchema = z.object({
  id: z.string(),
  name: z.string(),
  strain: strainRef,
  status: cropStatus,
  plantedAt: timestamp,
  expectedHarvestDate: timestamp.nullable(),
  expectedYield: z.number().nullable(),
  plants: z.array(z.string()),
  spaces: z.array(spaceRef),
  lights: z.array(lightSchema),
  pot: potSchema.nullable(),
  timeline: z.array(timelineEntrySchema),
  statusHistory: statusHistorySchema,
  seed: z.object({ id: z.string() }).nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
})

const cropSummarySchema = cropSchema.pick({ id: true, name: true, strain: true, status: true, plantedAt: true })

const createdCropSchema = cropSchema.pick({ id: true, name: true, strain: true, status: true, plantedAt: true, expectedYield: true, createdAt: true })

/** PATCH answers the id, the fields it was sent (as they are now) and updatedAt. */
const patchedCropSchema = cropSchema.omit({ id: true, updatedAt: true, status: true, timeline: true, statusHistory: true, plants: true, createdAt: true })
  .partial()
  .extend({ id: z.string(), updatedAt: timestamp })

const plantSchema = z.object({ id: z.string(), code: z.string(), status: z.string(), cropId: z.string() })

const harvestSchema = z.object({
  id: z.string(),
  cropId: z.string(),
  name: z.string(),
  status: z.enum(HARVEST_STATUSES),
  wetWeight: z.number(),
  dryWeight: z.number().nullable(),
  quality: z.enum(HARVEST_QUALITIES).nullable(),
  batchNumber: z.string(),
  moisture: z.number().nullable(),
  notes: z.string(),
  storageLocation: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
})

export const statsSchema = z.object({
  daysInCurrentStatus: z.number(),
  totalDaysFromSeed: z.number(),
  totalTimelineEntries: z.number(),
  wateringCount: z.number(),
  fertilizationCount: z.number(),
  totalHarvests: z.number(),
  totalDryWeight: z.number(),
})

const invalidTransitionSchema = z.object({
  error: z.string(),
  currentStatus: cropStatus,
  validTransitions: z.array(cropStatus),
})

export const cropResponses = {
  list: z.object({
    crops: z.array(cropSummarySchema),
    count: z.number(),
    limit: z.number(),
    offset: z.number(),
    filters: z.object({ status: cropStatus.optional(), strain: z.string().optional(), spaceId: z.string().optional(), search: z.string().optional() }),
  }),
  created: z.object({ crop: createdCropSchema }),
  one: z.object({ crop: cropSchema }),
  patched: z.object({ crop: patchedCropSchema }),
  deleted: z.object({ success: z.literal(true) }),
  complete: z.object({
    crop: cropSchema.extend({ spaces: z.array(spaceSchema) }),
    strain: strainSchema,
    harvests: z.array(harvestSchema),
    batches: z.array(z.object({
      batchNumber: z.string(),
      harvestId: z.string(),
      status: z.string(),
      gramsHarvested: z.number(),
      gramsAvailable: z.number(),
      gramsDispensed: z.number(),
      gramsOnHand: z.number(),
    })).meta({ description: 'The batches the crop\'s stocked harvests became (docs/batches.md)' }),
    stats: statsSchema,
  }),
  status: z.object({
    currentStatus: cropStatus,
    validTransitions: z.array(cropStatus),
    allStatuses: z.array(cropStatus),
    statusHistory: statusHistorySchema,
    isFrozen: z.boolean(),
  }),
  moved: z.object({
    crop: z.object({ id: z.string(), status: cropStatus, statusHistory: statusHistorySchema }),
    transition: z.object({ from: cropStatus, to: cropStatus, timestamp }),
  }),
  // The spec's flat body for an invalid move; other conflicts (a crop busy with other writers) use the envelope.
  moveConflict: z.union([invalidTransitionSchema, errorEnvelopeSchema]),
  timeline: z.object({
    entry: timelineEntrySchema,
    crop: z.object({ id: z.string(), timeline: z.array(timelineEntrySchema) }),
  }),
  plants: z.object({ plants: z.array(plantSchema), count: z.number() }),
  harvests: z.object({
    harvests: z.array(harvestSchema),
    count: z.number(),
    crop: z.object({ id: z.string(), name: z.string(), status: cropStatus }),
  }),
  harvested: z.object({
    harvest: harvestSchema,
    crop: z.object({ id: z.string(), status: cropStatus }),
    message: z.string(),
  }),
  harvestPatched: z.object({ harvest: harvestSchema }),
}

export const catalogResponses = {
  strains: z.object({ strains: z.array(strainSchema), count: z.number() }),
  strain: z.object({ strain: strainSchema }),
  spaces: z.object({ spaces: z.array(spaceSchema), count: z.number() }),
  space: z.object({ space: spaceSchema }),
  lights: z.object({ lights: z.array(lightSchema), count: z.number() }),
  light: z.object({ light: lightSchema }),
}
