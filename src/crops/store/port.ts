import type { CropStatus } from '../../../machines/crop.machine.ts'
import type { CatalogItems, CatalogKind, CropRecord, CropSummary, Plant } from '../model.ts'

export type CreateCropResult =
  | { ok: true }
  | { ok: false, reason: 'LIMIT_EXCEEDED', current: number }
  | { ok: false, reason: 'EXISTS' }

export type AddPlantsResult =
  | { ok: true }
  | { ok: false, reason: 'NOT_FOUND' }
  | { ok: false, reason: 'FROZEN', status: CropStatus }
  | { ok: false, reason: 'DUPLICATE', codes: string[] }

/** What a change of a crop gives back: the new record, and what the caller wants to report. */
export interface CropChange<T> {
  crop: CropRecord
  result: T
}

/**
 * Crops of every tenant. Each call that reads, checks and writes is atomic: a change is applied by a pure
 * function to the current record and written only if nobody wrote in between (else it is re-run).
 */
export interface CropStore {
  /** Adds a crop and its first plants unless the tenant already has `maxActive` active crops (an inactive one always fits). */
  create (crop: CropRecord, plants: Plant[], maxActive: number): Promise<CreateCropResult>
  get (tenantId: string, cropId: string): Promise<CropRecord | undefined>
  /** Newest first, as summaries. */
  list (tenantId: string): Promise<CropSummary[]>
  /** Undefined when the crop does not exist; whatever `change` throws is thrown. */
  update<T> (tenantId: string, cropId: string, change: (crop: CropRecord) => CropChange<T>): Promise<T | undefined>
  /** Removes the crop with its plants and harvests; false when there was none. */
  remove (tenantId: string, cropId: string): Promise<boolean>
  /** In creation order. */
  plants (tenantId: string, cropId: string): Promise<Plant[]>
  /** Adds all or none: refused when the crop is gone, in one of `frozen`, or any code is taken. */
  addPlants (tenantId: string, cropId: string, plants: Plant[], frozen: readonly CropStatus[]): Promise<AddPlantsResult>
  activeCount (tenantId: string): Promise<number>
  /** 1, 2, 3... per tenant, never the same twice. */
  nextBatchNumber (tenantId: string): Promise<number>
}

/** The tenant's strains, spaces and lights. */
export interface CatalogStore {
  /** Sorted by name. */
  list<K extends CatalogKind> (tenantId: string, kind: K): Promise<Array<CatalogItems[K]>>
  get<K extends CatalogKind> (tenantId: string, kind: K, id: string): Promise<CatalogItems[K] | undefined>
  /** False (and nothing written) when the id is taken. */
  add<K extends CatalogKind> (tenantId: string, kind: K, item: CatalogItems[K]): Promise<boolean>
}

/** How often a change is re-run when others keep writing the same crop before giving up. */
export const MAX_CHANGE_ATTEMPTS = 20
