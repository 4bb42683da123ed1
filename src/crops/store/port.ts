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

/** What a crop list may be narrowed to; the filters given combine. */
export interface CropFilters {
  status?: CropStatus | undefined
  strain?: string | undefined
  spaceId?: string | undefined
  /** A part of the name, in any case. */
  search?: string | undefined
}

export interface CropQuery extends CropFilters {
  limit: number
  offset: number
}

/** One page of the matching crops, and how many match in all. */
export interface CropPage {
  crops: CropSummary[]
  total: number
}

/** False when a query pages the whole list, so a store may read only the page. */
export const narrows = (q: CropFilters): boolean => Boolean(q.status || q.strain || q.spaceId || q.search)

/** Filters and pages summaries already newest first; the same decision for both stores. */
export function pageOf (newestFirst: CropSummary[], q: CropQuery): CropPage {
  const search = q.search?.toLocaleLowerCase()
  const matching = narrows(q)
    ? newestFirst.filter((crop) =>
      (!q.status || crop.status === q.status) &&
      (!q.strain || crop.strain.id === q.strain) &&
      (!q.spaceId || crop.spaceIds.includes(q.spaceId)) &&
      (!search || crop.name.toLocaleLowerCase().includes(search)))
    : newestFirst
  return { crops: matching.slice(q.offset, q.offset + q.limit), total: matching.length }
}

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
  /** A page of the crops that match the query, newest first, as summaries. */
  list (tenantId: string, query: CropQuery): Promise<CropPage>
  /** Undefined when the crop does not exist; whatever `change` throws is thrown. */
  update<T> (tenantId: string, cropId: string, change: (crop: CropRecord) => CropChange<T>): Promise<T | undefined>
  /** Removes the crop with its plants and harvests; false when there was none. */
  remove (tenantId: string, cropId: string): Promise<boolean>
  /** In creation order. */
  plants (tenantId: string, cropId: string): Promise<Plant[]>
  /** Adds all or none: refused when the crop is gone, in one of `frozen`, or any code is taken. */
  addPlants (tenantId: string, cropId: string, plants: Plant[], frozen: readonly CropStatus[]): Promise<AddPlantsResult>
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
