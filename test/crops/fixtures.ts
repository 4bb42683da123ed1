import { randomUUID } from 'node:crypto'
import { CROP_MACHINE_VERSION, startHistory, type CropStatus } from '../../machines/crop.machine.ts'
import type { CropRecord, Plant } from '../../src/crops/model.ts'

let clock = Date.UTC(2024, 0, 1)

/** A stored crop record as the service would write it; createdAt strictly increases between calls. */
export function cropRecord (tenantId: string, overrides: Partial<CropRecord> = {}): CropRecord {
  const createdAt = new Date(clock += 1000).toISOString()
  const status: CropStatus = overrides.status ?? 'IDEATING'
  return {
    id: `crop_${randomUUID()}`,
    tenantId,
    machineVersion: CROP_MACHINE_VERSION,
    name: 'Test crop',
    strain: { id: 'strain_x', name: 'X' },
    status,
    plantedAt: createdAt,
    expectedHarvestDate: null,
    expectedYield: null,
    spaceIds: [],
    lightIds: [],
    pot: null,
    seed: null,
    timeline: [],
    statusHistory: startHistory(status, createdAt),
    harvests: [],
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  }
}

export function plants (cropId: string, codes: string[]): Plant[] {
  return codes.map((code) => ({ id: `plant_${randomUUID()}`, code, status: 'ACTIVE', cropId }))
}
