import { CROP_MACHINE_VERSION, moveStatus, startHistory, type CropLifecycle, type CropStatus } from '../../machines/crop.machine.ts'
import type { Author, CatalogItems, CatalogKind, CropRecord, Plant, TimelineEntry } from './model.ts'
import { plantCodes } from './plant-codes.ts'
import type { CatalogStore, CropStore } from './store/index.ts'

// Each demo club gets a catalog and one crop under way, with stable ids (docs/crops.md).

type Catalog = { [K in CatalogKind]: Array<CatalogItems[K]> }

export const demoCatalogs: Record<string, Catalog> = {
  'club-norte': {
    strains: [
      { id: 'strain_norte_gelato', name: 'Gelato', type: 'HYBRID', cannabinoids: { thc: 22, cbd: 0.1 } },
      { id: 'strain_norte_amnesia', name: 'Amnesia Haze', type: 'SATIVA', cannabinoids: { thc: 21, cbd: 0.2 } },
      { id: 'strain_norte_northern_lights', name: 'Northern Lights', type: 'INDICA', cannabinoids: { thc: 18, cbd: 0.3 } },
    ],
    spaces: [
      { id: 'space_norte_vege', name: 'Sala de vegetativo', squareMeters: 6, status: 'ACTIVE' },
      { id: 'space_norte_flora', name: 'Sala de floración', squareMeters: 12, status: 'ACTIVE' },
    ],
    lights: [
      { id: 'light_norte_led_1', name: 'LED 480 W', type: 'LED' },
      { id: 'light_norte_hps_1', name: 'HPS 600 W', type: 'HPS' },
    ],
  },
  'club-sur': {
    strains: [
      { id: 'strain_sur_critical', name: 'Critical Mass', type: 'INDICA', cannabinoids: { thc: 19, cbd: 0.5 } },
      { id: 'strain_sur_charlotte', name: 'Charlotte\'s Web', type: 'SATIVA', cannabinoids: { thc: 0.5, cbd: 15 } },
      { id: 'strain_sur_gelato', name: 'Gelato', type: 'HYBRID', cannabinoids: { thc: 22, cbd: 0.1 } },
    ],
    spaces: [
      { id: 'space_sur_indoor', name: 'Indoor 1', squareMeters: 9, status: 'ACTIVE' },
      { id: 'space_sur_patio', name: 'Patio', squareMeters: 20, status: 'ACTIVE' },
    ],
    lights: [
      { id: 'light_sur_led_1', name: 'LED 320 W', type: 'LED' },
    ],
  },
}

interface DemoCrop {
  id: string
  tenantId: string
  name: string
  strain: { id: string, name: string }
  spaceIds: string[]
  lightIds: string[]
  /** Status moves as days before the seed day; the first is the planting. */
  moves: Array<[CropStatus, number]>
  plantPrefix: string
  plantCount: number
  author: Author
  /** Waterings, as days before the seed day. */
  waterings: number[]
}

export const demoCrops: DemoCrop[] = [
  {
    id: 'crop_norte_gelato',
    tenantId: 'club-norte',
    name: 'Gelato - sala de floración',
    strain: { id: 'strain_norte_gelato', name: 'Gelato' },
    spaceIds: ['space_norte_flora'],
    lightIds: ['light_norte_led_1'],
    moves: [['PROPAGATING', 70], ['VEGETATING', 56], ['FLOWERING', 21]],
    plantPrefix: 'GEL-',
    plantCount: 6,
    author: { id: 'user_grower_norte', name: 'Grower Norte', email: 'grower@club-norte.test' },
    waterings: [20, 13, 6, 2],
  },
  {
    id: 'crop_sur_critical',
    tenantId: 'club-sur',
    name: 'Critical Mass - indoor',
    strain: { id: 'strain_sur_critical', name: 'Critical Mass' },
    spaceIds: ['space_sur_indoor'],
    lightIds: ['light_sur_led_1'],
    moves: [['PROPAGATING', 30], ['VEGETATING', 16]],
    plantPrefix: 'CM-',
    plantCount: 4,
    author: { id: 'user_admin_sur', name: 'Admin Sur', email: 'admin@club-sur.test' },
    waterings: [10, 3],
  },
]

const DAY_MS = 24 * 3600 * 1000

/** The record of a demo crop, its history and timeline dated relative to `now`. */
function demoCropRecord (demo: DemoCrop, now: Date): { crop: CropRecord, plants: Plant[] } {
  const daysAgo = (n: number) => new Date(now.getTime() - n * DAY_MS).toISOString()
  const [[first, plantedDaysAgo], ...later] = demo.moves as [[CropStatus, number], ...Array<[CropStatus, number]>]
  const plantedAt = daysAgo(plantedDaysAgo)
  let life: CropLifecycle = { status: first, statusHistory: startHistory(first, plantedAt) }
  for (const [to, days] of later) life = moveStatus(life, to, daysAgo(days)) ?? life
  const entry = (type: TimelineEntry['type'], date: string, data: TimelineEntry['data'], notes: string): TimelineEntry =>
    ({ type, date, data, notes, evidences: [], author: demo.author })
  const timeline = [
    entry('PLANTING', plantedAt, {}, 'Esquejes enraizados en cubos de lana de roca'),
    ...demo.waterings.map((d) => entry('WATERING', daysAgo(d), { amount: 2, unit: 'L', pH: 6.2, EC: 1.4 }, '')),
  ].sort((a, b) => a.date.localeCompare(b.date))
  const crop: CropRecord = {
    id: demo.id,
    tenantId: demo.tenantId,
    machineVersion: CROP_MACHINE_VERSION,
    name: demo.name,
    strain: demo.strain,
    status: life.status,
    plantedAt,
    expectedHarvestDate: daysAgo(-60),
    expectedYield: 1200,
    spaceIds: demo.spaceIds,
    lightIds: demo.lightIds,
    pot: { milliliters: 11_000, substrate: [{ type: 'COCO', percentage: 70 }, { type: 'PERLITE', percentage: 30 }] },
    seed: null,
    timeline,
    statusHistory: life.statusHistory,
    harvests: [],
    createdAt: plantedAt,
    updatedAt: now.toISOString(),
  }
  const plants = plantCodes(demo.plantPrefix, 1, demo.plantCount)
    .map((code) => ({ id: `plant_${demo.id}_${code}`, code, status: 'ACTIVE', cropId: demo.id }))
  return { crop, plants }
}

/** Idempotent: catalog items and crops that exist are left as they are. */
export async function seedCropDemo (crops: CropStore, catalog: CatalogStore, now = new Date()): Promise<void> {
  for (const [tenantId, items] of Object.entries(demoCatalogs)) {
    for (const kind of Object.keys(items) as CatalogKind[]) {
      for (const item of items[kind]) await catalog.add(tenantId, kind, item)
    }
  }
  for (const demo of demoCrops) {
    const { crop, plants } = demoCropRecord(demo, now)
    await crops.create(crop, plants, Number.MAX_SAFE_INTEGER)
  }
}
