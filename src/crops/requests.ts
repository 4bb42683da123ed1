import { z } from 'zod'
import { allStatuses } from '../../machines/crop.machine.ts'
import { pageQuery } from '../schemas/common.ts'
import { HARVEST_QUALITIES, HARVEST_STATUSES, PLANT_INTERACTIONS } from './model.ts'
import { parseTimelineData } from './timeline-data.ts'

// What the crop and catalog routes accept. Validation here; decisions in service.ts.

const cropStatus = z.enum(allStatuses)
const plantInteraction = z.enum(PLANT_INTERACTIONS)

/** Ids we make and ids clients choose (plants, strains...) share one safe alphabet. */
export const idString = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'Must be 1 to 100 letters, digits, "_", "." or "-"')

/** A date or a date-time with offset, stored as a UTC ISO 8601 timestamp. */
export const dateInput = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Must be an ISO 8601 date (2024-05-01) or date-time with offset' })
  .transform((v) => new Date(v).toISOString())

/** An upper-case word, for the open-ended kinds the spec shows some values of (substrate COCO, space ACTIVE...). */
const upperWord = z.string().regex(/^[A-Z][A-Z0-9_]{0,39}$/, 'Must be an upper-case word, for example ACTIVE')

const name = z.string().trim().min(1, 'Required').max(120)
const text = z.string().max(2000)
const grams = z.number().positive().max(10_000_000)

const authorInput = z.object({
  id: z.string().trim().min(1).max(100),
  name: z.string().trim().min(1).max(120),
  email: z.email().optional(),
})

const potInput = z.object({
  milliliters: z.number().positive().max(1_000_000),
  substrate: z.array(z.object({ type: upperWord, percentage: z.number().gt(0).max(100) })).max(10).default([]),
}).refine((pot) => pot.substrate.length === 0 || Math.abs(pot.substrate.reduce((sum, s) => sum + s.percentage, 0) - 100) < 0.5, {
  message: 'Substrate percentages must add up to 100',
  path: ['substrate'],
})

const unique = (ids: string[]) => new Set(ids).size === ids.length
const idList = (max: number) => z.array(idString).max(max).refine(unique, 'Must not repeat an id')

export const cropParams = z.object({ cropId: idString })
export const harvestParams = z.object({ cropId: idString, harvestId: idString })

export const listCropsQuery = pageQuery(50).extend({
  status: cropStatus.optional(),
  strain: idString.optional(),
  spaceId: idString.optional(),
  // An empty search box means no search.
  search: z.string().trim().max(100).optional().transform((v) => v || undefined),
})

export const createCropBody = z.object({
  name,
  strain: idString,
  strainName: name.optional(),
  status: cropStatus.default('IDEATING'),
  plantedAt: dateInput.optional(),
  expectedYield: grams.optional(),
  expectedHarvestDate: dateInput.optional(),
  pot: potInput.optional(),
  plants: idList(500).optional(),
  seed: idString.optional(),
  spaces: idList(50).optional(),
  lights: idList(50).optional(),
}).meta({
  // Ids of the demo club-norte (SEED=demo), so "Try it out" in /docs creates a crop there.
  examples: [{
    name: 'Gelato, flowering room 2',
    strain: 'strain_norte_gelato',
    plantedAt: '2026-03-01',
    expectedYield: 450,
    spaces: ['space_norte_vege'],
    lights: ['light_norte_led_1'],
  }],
})
export type CreateCropInput = z.infer<typeof createCropBody>

export const patchCropBody = z.object({
  name: name.optional(),
  strain: idString.optional(),
  strainName: name.optional(),
  plantedAt: dateInput.optional(),
  expectedYield: grams.nullable().optional(),
  expectedHarvestDate: dateInput.nullable().optional(),
  pot: potInput.nullable().optional(),
  seed: idString.nullable().optional(),
  spaces: idList(50).optional(),
  lights: idList(50).optional(),
  status: z.never({ error: 'Status is changed through POST /api/crops/{crop_id}/status' }).optional(),
  plants: z.never({ error: 'Plants are added through POST /api/crops/{crop_id}/plants' }).optional(),
}).refine((body) => Object.values(body).some((v) => v !== undefined), {
  message: 'Send at least one of name, strain, plantedAt, expectedYield, expectedHarvestDate, pot, seed, spaces, lights',
}).refine((body) => body.strainName === undefined || body.strain !== undefined, {
  message: 'Names the strain sent in strain; send both',
  path: ['strainName'],
})
export type PatchCropInput = Omit<z.infer<typeof patchCropBody>, 'status' | 'plants'>

export const statusBody = z.object({
  newStatus: cropStatus,
  notes: text.optional(),
  author: authorInput.optional(),
})

export const timelineBody = z.object({
  type: plantInteraction,
  date: dateInput.optional(),
  notes: text.optional(),
  data: z.unknown().optional(),
  evidences: z.array(z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL' })).max(20).optional(),
  author: authorInput.optional(),
}).transform((body, ctx) => {
  const parsed = parseTimelineData(body.type, body.data)
  if (!parsed.ok) {
    for (const issue of parsed.issues) ctx.addIssue({ code: 'custom', path: ['data', ...issue.path], message: issue.message })
    return z.NEVER
  }
  return { ...body, data: parsed.data }
})
export type TimelineInput = z.infer<typeof timelineBody>

export const plantsBody = z.object({
  count: z.number().int().positive().max(500, 'At most 500 plants per call'),
  prefix: z.string().regex(/^[A-Za-z0-9_.-]{0,20}$/, 'Up to 20 letters, digits, "_", "." or "-"').default('P-'),
  status: upperWord.default('ACTIVE'),
  startCode: z.number().int().min(0).max(999_999).optional(),
})
export type PlantsInput = z.infer<typeof plantsBody>

export const harvestBody = z.object({
  wetWeight: grams,
  quality: z.enum(HARVEST_QUALITIES).optional(),
  notes: text.optional(),
  name: name.optional(),
  storageLocation: z.string().trim().min(1).max(120).optional(),
  continueFlowering: z.boolean().default(false),
})
export type HarvestInput = z.infer<typeof harvestBody>

export const patchHarvestBody = z.object({
  dryWeight: grams.optional(),
  status: z.enum(HARVEST_STATUSES).optional(),
  moisture: z.number().min(0).max(100).optional(),
  quality: z.enum(HARVEST_QUALITIES).optional(),
}).refine((body) => Object.values(body).some((v) => v !== undefined), {
  message: 'Send at least one of dryWeight, status, moisture, quality',
})
export type PatchHarvestInput = z.infer<typeof patchHarvestBody>

export const strainBody = z.object({
  id: idString.optional(),
  name,
  type: upperWord,
  cannabinoids: z.object({ thc: z.number().min(0).max(100), cbd: z.number().min(0).max(100) }).default({ thc: 0, cbd: 0 }),
}).meta({ examples: [{ name: 'White Widow', type: 'HYBRID', cannabinoids: { thc: 19, cbd: 0.2 } }] })

export const spaceBody = z.object({
  id: idString.optional(),
  name,
  squareMeters: z.number().positive().max(100_000),
  status: upperWord.default('ACTIVE'),
}).meta({ examples: [{ name: 'Drying room', squareMeters: 8, status: 'ACTIVE' }] })

export const lightBody = z.object({
  id: idString.optional(),
  name,
  type: upperWord,
}).meta({ examples: [{ name: 'LED 720 W', type: 'LED' }] })
