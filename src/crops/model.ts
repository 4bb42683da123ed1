import type { CropStatus, StatusHistoryEntry } from '../../machines/crop.machine.ts'

// What the crops domain stores. The API shapes are built from these in views.ts.

export const PLANT_INTERACTIONS = [
  'PLANTING',
  'WATERING',
  'FERTILIZATION',
  'TRANSPLANT',
  'PRUNING',
  'TRAINING',
  'LIGHT_SCHEDULE',
  'HEALTH',
  'OBSERVATION',
  'HARVESTING',
] as const
export type PlantInteraction = typeof PLANT_INTERACTIONS[number]

export const HARVEST_STATUSES = ['DRYING', 'CURING', 'STOCKED'] as const
type HarvestStatus = typeof HARVEST_STATUSES[number]

export const HARVEST_QUALITIES = ['A', 'B', 'C'] as const
type HarvestQuality = typeof HARVEST_QUALITIES[number]

export interface Author {
  id: string
  name: string
  email?: string | undefined
}

export interface TimelineEntry {
  type: PlantInteraction
  date: string
  data: Record<string, unknown> | Array<Record<string, unknown>>
  notes: string
  evidences: string[]
  author: Author
}

interface Pot {
  milliliters: number
  substrate: Array<{ type: string, percentage: number }>
}

export interface Harvest {
  id: string
  cropId: string
  name: string
  status: HarvestStatus
  wetWeight: number
  dryWeight: number | null
  quality: HarvestQuality | null
  batchNumber: string
  moisture: number | null
  notes: string
  storageLocation: string | null
  createdAt: string
  updatedAt: string
}

export interface CropRecord {
  id: string
  tenantId: string
  /** The crop machine's version when this record was written (machines/crop.machine.ts). */
  machineVersion: number
  name: string
  strain: { id: string, name: string }
  status: CropStatus
  plantedAt: string
  expectedHarvestDate: string | null
  expectedYield: number | null
  spaceIds: string[]
  lightIds: string[]
  pot: Pot | null
  seed: { id: string } | null
  timeline: TimelineEntry[]
  statusHistory: StatusHistoryEntry[]
  harvests: Harvest[]
  createdAt: string
  updatedAt: string
}

/** What the crop list shows and filters on; kept beside the record, so that a list reads no timelines. */
export type CropSummary = Pick<CropRecord, 'id' | 'name' | 'strain' | 'status' | 'plantedAt' | 'spaceIds' | 'createdAt'>

export function summarize ({ id, name, strain, status, plantedAt, spaceIds, createdAt }: CropRecord): CropSummary {
  return { id, name, strain: { ...strain }, status, plantedAt, spaceIds: [...spaceIds], createdAt }
}

export interface Plant {
  id: string
  code: string
  status: string
  cropId: string
}

export interface Strain {
  id: string
  name: string
  type: string
  cannabinoids: { thc: number, cbd: number }
}

export interface Space {
  id: string
  name: string
  squareMeters: number
  status: string
}

export interface Light {
  id: string
  name: string
  type: string
}

export interface CatalogItems {
  strains: Strain
  spaces: Space
  lights: Light
}
export type CatalogKind = keyof CatalogItems
