import type { RedisClient } from '../../stores/redis-client.ts'
import { isActive, type CropStatus } from '../../../machines/crop.machine.ts'
import { AppError } from '../../errors.ts'
import { keys } from '../../stores/keys.ts'
import { summarize, type CatalogItems, type CatalogKind, type CropRecord, type CropSummary, type Plant } from '../model.ts'
import {
  MAX_CHANGE_ATTEMPTS, narrows, pageOf, type AddPlantsResult, type CatalogStore, type CreateCropResult, type CropChange, type CropPage, type CropQuery,
  type CropStore
} from './port.ts'
import * as script from './scripts.ts'

const flag = (status: CropStatus) => isActive(status) ? '1' : '0'
const plantArgs = (plants: Plant[]) => plants.flatMap((p) => [p.code, JSON.stringify(p)])

export class RedisCropStore implements CropStore {
  constructor (private readonly redis: RedisClient) {}

  private cropKeys (tenantId: string, cropId: string): string[] {
    const k = keys.crops
    return [k.one(tenantId, cropId), k.index(tenantId), k.active(tenantId), k.plants(tenantId, cropId), k.plantCodes(tenantId, cropId)]
  }

  async create (crop: CropRecord, plants: Plant[], maxActive: number): Promise<CreateCropResult> {
    return await script.createCrop(this.redis, this.cropKeys(crop.tenantId, crop.id),
      crop.id, JSON.stringify(crop), crop.status, flag(crop.status), maxActive, Date.parse(crop.createdAt),
      JSON.stringify(summarize(crop)), ...plantArgs(plants))
  }

  async get (tenantId: string, cropId: string) {
    const doc = await this.redis.hget(keys.crops.one(tenantId, cropId), 'doc')
    return doc ? JSON.parse(doc) as CropRecord : undefined
  }

  // Without filters only the page is read; a filter needs every summary (a club has hundreds of crops, not millions).
  async list (tenantId: string, query: CropQuery): Promise<CropPage> {
    const index = keys.crops.index(tenantId)
    if (narrows(query)) return pageOf(await this.summaries(tenantId, await this.redis.zrevrange(index, 0, -1)), query)
    if (query.limit <= 0) return { crops: [], total: await this.redis.zcard(index) }
    const [total, ids] = await Promise.all([this.redis.zcard(index), this.redis.zrevrange(index, query.offset, query.offset + query.limit - 1)])
    return { crops: await this.summaries(tenantId, ids), total }
  }

  /** The summaries of these crops, in this order; a crop gone meanwhile is left out. */
  private async summaries (tenantId: string, ids: string[]): Promise<CropSummary[]> {
    const sums = await this.fieldOfEach(tenantId, ids, 'sum')
    // A crop stored before summaries were kept is summarised from its record.
    const older = ids.filter((_, i) => sums[i] === null)
    const docs = new Map((await this.fieldOfEach(tenantId, older, 'doc')).map((doc, i) => [older[i], doc]))
    return ids.flatMap((id, i) => {
      const sum = sums[i]
      if (sum) return [JSON.parse(sum) as CropSummary]
      const doc = docs.get(id)
      return doc ? [summarize(JSON.parse(doc) as CropRecord)] : []
    })
  }

  /** One hash field of each crop, null where the crop (or the field) is gone. */
  private async fieldOfEach (tenantId: string, ids: string[], field: string): Promise<Array<string | null>> {
    if (ids.length === 0) return []
    const pipeline = this.redis.pipeline()
    for (const id of ids) pipeline.hget(keys.crops.one(tenantId, id), field)
    const replies = await pipeline.exec() ?? []
    return replies.map(([err, value]) => {
      if (err) throw err
      return typeof value === 'string' ? value : null
    })
  }

  async update<T> (tenantId: string, cropId: string, change: (crop: CropRecord) => CropChange<T>) {
    const key = keys.crops.one(tenantId, cropId)
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      const [doc, version] = await this.redis.hmget(key, 'doc', 'v')
      if (!doc || !version) return undefined
      const { crop, result } = change(JSON.parse(doc) as CropRecord)
      const written = await script.updateCrop(
        this.redis, [key, keys.crops.active(tenantId)], version, JSON.stringify(crop), crop.status, cropId, flag(crop.status), JSON.stringify(summarize(crop))
      )
      if (written === 1) return result
      if (written === 0) return undefined
    }
    throw new AppError('CONFLICT', 'The crop is being changed by others right now; try again')
  }

  async remove (tenantId: string, cropId: string) {
    return await script.removeCrop(this.redis, this.cropKeys(tenantId, cropId), cropId)
  }

  async plants (tenantId: string, cropId: string) {
    const raws = await this.redis.lrange(keys.crops.plants(tenantId, cropId), 0, -1)
    return raws.map((raw) => JSON.parse(raw) as Plant)
  }

  async addPlants (tenantId: string, cropId: string, plants: Plant[], frozen: readonly CropStatus[]): Promise<AddPlantsResult> {
    const k = keys.crops
    return await script.addPlants(this.redis, [k.one(tenantId, cropId), k.plantCodes(tenantId, cropId), k.plants(tenantId, cropId)],
      `,${frozen.join(',')},`, ...plantArgs(plants))
  }

  async nextBatchNumber (tenantId: string) {
    return await this.redis.incr(keys.crops.batchSeq(tenantId))
  }
}

export class RedisCatalogStore implements CatalogStore {
  constructor (private readonly redis: RedisClient) {}

  async list<K extends CatalogKind> (tenantId: string, kind: K) {
    const raws = await this.redis.hvals(keys.crops.catalog(tenantId, kind))
    return raws.map((raw) => JSON.parse(raw) as CatalogItems[K]).sort((a, b) => a.name.localeCompare(b.name))
  }

  async get<K extends CatalogKind> (tenantId: string, kind: K, id: string) {
    const raw = await this.redis.hget(keys.crops.catalog(tenantId, kind), id)
    return raw ? JSON.parse(raw) as CatalogItems[K] : undefined
  }

  async add<K extends CatalogKind> (tenantId: string, kind: K, item: CatalogItems[K]) {
    return await this.redis.hsetnx(keys.crops.catalog(tenantId, kind), item.id, JSON.stringify(item)) === 1
  }
}
