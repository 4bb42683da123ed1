import { isActive, type CropStatus } from '../../../machines/crop.machine.ts'
import { summarize, type CatalogItems, type CatalogKind, type CropRecord, type CropSummary, type Plant } from '../model.ts'
import { pageOf, type AddPlantsResult, type CatalogStore, type CreateCropResult, type CropChange, type CropQuery, type CropStore } from './port.ts'

interface Entry {
  crop: CropRecord
  plants: Plant[]
  codes: Set<string>
}

const byCreatedDesc = (a: CropSummary, b: CropSummary) => b.createdAt.localeCompare(a.createdAt)

// Nothing awaits between a read and its write here, so every method is atomic in one process.
export class MemoryCropStore implements CropStore {
  private readonly tenants = new Map<string, Map<string, Entry>>()
  private readonly batchSeq = new Map<string, number>()

  private crops (tenantId: string): Map<string, Entry> {
    let crops = this.tenants.get(tenantId)
    if (!crops) {
      crops = new Map()
      this.tenants.set(tenantId, crops)
    }
    return crops
  }

  async create (crop: CropRecord, plants: Plant[], maxActive: number): Promise<CreateCropResult> {
    const crops = this.crops(crop.tenantId)
    if (crops.has(crop.id)) return { ok: false, reason: 'EXISTS' }
    if (isActive(crop.status)) {
      const current = this.countActive(crops)
      if (current >= maxActive) return { ok: false, reason: 'LIMIT_EXCEEDED', current }
    }
    crops.set(crop.id, { crop: structuredClone(crop), plants: structuredClone(plants), codes: new Set(plants.map((p) => p.code)) })
    return { ok: true }
  }

  async get (tenantId: string, cropId: string) {
    return structuredClone(this.crops(tenantId).get(cropId)?.crop)
  }

  async list (tenantId: string, query: CropQuery) {
    return pageOf([...this.crops(tenantId).values()].reverse().map((e) => summarize(e.crop)).sort(byCreatedDesc), query)
  }

  async update<T> (tenantId: string, cropId: string, change: (crop: CropRecord) => CropChange<T>) {
    const entry = this.crops(tenantId).get(cropId)
    if (!entry) return undefined
    const { crop, result } = change(structuredClone(entry.crop))
    entry.crop = structuredClone(crop)
    return result
  }

  async remove (tenantId: string, cropId: string) {
    return this.crops(tenantId).delete(cropId)
  }

  async plants (tenantId: string, cropId: string) {
    return structuredClone(this.crops(tenantId).get(cropId)?.plants ?? [])
  }

  async addPlants (tenantId: string, cropId: string, plants: Plant[], frozen: readonly CropStatus[]): Promise<AddPlantsResult> {
    const entry = this.crops(tenantId).get(cropId)
    if (!entry) return { ok: false, reason: 'NOT_FOUND' }
    if (frozen.includes(entry.crop.status)) return { ok: false, reason: 'FROZEN', status: entry.crop.status }
    const codes = plants.map((p) => p.code).filter((code) => entry.codes.has(code))
    if (codes.length > 0) return { ok: false, reason: 'DUPLICATE', codes }
    for (const plant of plants) {
      entry.plants.push(structuredClone(plant))
      entry.codes.add(plant.code)
    }
    return { ok: true }
  }

  async nextBatchNumber (tenantId: string) {
    const next = (this.batchSeq.get(tenantId) ?? 0) + 1
    this.batchSeq.set(tenantId, next)
    return next
  }

  private countActive (crops: Map<string, Entry>): number {
    let n = 0
    for (const { crop } of crops.values()) if (isActive(crop.status)) n++
    return n
  }
}

export class MemoryCatalogStore implements CatalogStore {
  private readonly items = new Map<string, Map<string, unknown>>()

  private kind (tenantId: string, kind: CatalogKind): Map<string, unknown> {
    const key = `${tenantId}\n${kind}`
    let items = this.items.get(key)
    if (!items) {
      items = new Map()
      this.items.set(key, items)
    }
    return items
  }

  async list<K extends CatalogKind> (tenantId: string, kind: K) {
    const all = [...this.kind(tenantId, kind).values()] as Array<CatalogItems[K]>
    return structuredClone(all).sort((a, b) => a.name.localeCompare(b.name))
  }

  async get<K extends CatalogKind> (tenantId: string, kind: K, id: string) {
    return structuredClone(this.kind(tenantId, kind).get(id)) as CatalogItems[K] | undefined
  }

  async add<K extends CatalogKind> (tenantId: string, kind: K, item: CatalogItems[K]) {
    const items = this.kind(tenantId, kind)
    if (items.has(item.id)) return false
    items.set(item.id, structuredClone(item))
    return true
  }
}
