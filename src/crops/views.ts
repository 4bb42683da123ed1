import type { z } from 'zod'
import type { CropRecord, CropSummary, Space } from './model.ts'
import type { cropSchema, statsSchema } from './responses.ts'
import type { CropDetails } from './service.ts'

// Records to the spec's shapes. Pure.

type CropView = z.infer<typeof cropSchema>

const DAY_MS = 24 * 3600 * 1000

export function cropView ({ crop, plants, spaces, lights }: CropDetails): CropView {
  return {
    id: crop.id,
    name: crop.name,
    strain: crop.strain,
    status: crop.status,
    plantedAt: crop.plantedAt,
    expectedHarvestDate: crop.expectedHarvestDate,
    expectedYield: crop.expectedYield,
    plants: plants.map((p) => p.id),
    spaces: spaces.map(({ id, name }) => ({ id, name })),
    lights: lights.map(({ id, name, type }) => ({ id, name, type })),
    pot: crop.pot,
    timeline: crop.timeline,
    statusHistory: crop.statusHistory,
    seed: crop.seed,
    createdAt: crop.createdAt,
    updatedAt: crop.updatedAt,
  }
}

/** The complete view's crop: spaces with their size and status. */
export function completeCropView (details: CropDetails): Omit<CropView, 'spaces'> & { spaces: Space[] } {
  return { ...cropView(details), spaces: details.spaces.map(({ id, name, squareMeters, status }) => ({ id, name, squareMeters, status })) }
}

export function cropSummary (crop: CropSummary) {
  return { id: crop.id, name: crop.name, strain: crop.strain, status: crop.status, plantedAt: crop.plantedAt }
}

/** Whole days elapsed, never negative (a plantedAt in the future counts as 0). */
function daysSince (from: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / DAY_MS))
}

export function cropStats (crop: CropRecord, now: Date): z.infer<typeof statsSchema> {
  const open = crop.statusHistory.at(-1)
  const dryWeight = crop.harvests.reduce((sum, h) => sum + (h.dryWeight ?? 0), 0)
  return {
    daysInCurrentStatus: open ? daysSince(open.start, now) : 0,
    totalDaysFromSeed: daysSince(crop.plantedAt, now),
    totalTimelineEntries: crop.timeline.length,
    wateringCount: crop.timeline.filter((e) => e.type === 'WATERING').length,
    fertilizationCount: crop.timeline.filter((e) => e.type === 'FERTILIZATION').length,
    totalHarvests: crop.harvests.length,
    // Summing decimals drifts (0.1 + 0.2); grams to two decimals is what anyone reads.
    totalDryWeight: Math.round(dryWeight * 100) / 100,
  }
}
