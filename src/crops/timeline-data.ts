import { z } from 'zod'
import type { PlantInteraction } from './model.ts'

// The `data` of a timeline entry, by type. The spec gives the shapes of WATERING and FERTILIZATION; every other
// type carries a free object (its shape is not shown), PLANTING included.

const unit = z.string().trim().min(1).max(20)

const wateringData = z.object({
  amount: z.number().positive(),
  unit,
  // Not every grower measures pH and EC on every watering; when given they must be plausible.
  pH: z.number().min(0).max(14).optional(),
  EC: z.number().min(0).max(20).optional(),
})

const fertilizerData = z.object({
  name: z.string().trim().min(1).max(100),
  nutrients: z.array(z.string().trim().min(1).max(60)).max(30),
  amount: z.number().positive(),
  unit,
})

const fertilizationData = z.array(fertilizerData).min(1, 'At least one fertilizer').max(30)

const freeData = z.record(z.string(), z.unknown())

const SHAPES: Partial<Record<PlantInteraction, z.ZodType>> = {
  WATERING: wateringData,
  FERTILIZATION: fertilizationData,
}

export type TimelineData = Record<string, unknown> | Array<Record<string, unknown>>

export type DataIssue = { path: PropertyKey[], message: string }

/** Checks `data` for a timeline entry of `type`; a missing data is {} except where the spec gives a shape. */
export function parseTimelineData (type: PlantInteraction, data: unknown): { ok: true, data: TimelineData } | { ok: false, issues: DataIssue[] } {
  const shape = SHAPES[type]
  if (data === undefined) {
    return shape ? { ok: false, issues: [{ path: [], message: `Required for ${type}` }] } : { ok: true, data: {} }
  }
  const parsed = (shape ?? freeData).safeParse(data)
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) }
  return { ok: true, data: parsed.data as TimelineData }
}
