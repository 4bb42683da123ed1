import type { RedisClient } from '../../stores/redis-client.ts'
import { AppError } from '../../errors.ts'
import { keys } from '../../stores/keys.ts'
import { summarize, type Batch, type BatchSummary } from '../model.ts'
import {
  MAX_CHANGE_ATTEMPTS, indexScore, narrows, offered, pageOf, touchedVariants, type BatchChange, type BatchPage, type BatchQuery, type BatchStore
} from './port.ts'
import { writeBatches } from './scripts.ts'

interface Write {
  version: string
  before: Batch | undefined
  after: Batch
}

export class RedisBatchStore implements BatchStore {
  constructor (private readonly redis: RedisClient) {}

  /** One script writes them all, or none when a version (or the order's draw) moved: answers false then. */
  private async write (tenantId: string, writes: Write[], order?: { id: string, expected: string | null, next: string | null }): Promise<boolean> {
    const k = keys.batches
    const batchKeys = writes.map((w) => k.one(tenantId, w.after.batchNumber))
    const variantKeys: string[] = []
    const ops: Array<string | number> = []
    for (const { before, after } of writes) {
      const now = offered(after)
      for (const variantId of touchedVariants(before, after)) {
        variantKeys.push(k.offers(tenantId, variantId))
        ops.push(batchKeys.length + 2 + variantKeys.length, now.get(variantId) ?? '', after.batchNumber)
      }
    }
    const args = writes.flatMap(({ version, after }) =>
      [version, JSON.stringify(after), JSON.stringify(summarize(after)), indexScore(after), after.batchNumber])
    const draw = order ? [order.id, order.expected ?? '', order.next ?? ''] : ['', '', '']
    const written = await writeBatches(
      this.redis, [...batchKeys, k.index(tenantId), k.draws(tenantId), ...variantKeys], writes.length, ...args, ...draw, ...ops
    )
    return written === 0
  }

  async create (batch: Batch) {
    return await this.write(batch.tenantId, [{ version: '0', before: undefined, after: batch }])
  }

  async get (tenantId: string, batchNumber: string) {
    const doc = await this.redis.hget(keys.batches.one(tenantId, batchNumber), 'doc')
    return doc ? JSON.parse(doc) as Batch : undefined
  }

  // Without filters only the page is read; a filter reads every summary (hundreds per club, not millions).
  async list (tenantId: string, query: BatchQuery): Promise<BatchPage> {
    const index = keys.batches.index(tenantId)
    if (narrows(query)) return pageOf(await this.fieldOfEach<BatchSummary>(tenantId, await this.redis.zrevrange(index, 0, -1), 'sum'), query)
    if (query.limit <= 0) return { batches: [], total: await this.redis.zcard(index) }
    const [total, numbers] = await Promise.all([this.redis.zcard(index), this.redis.zrevrange(index, query.offset, query.offset + query.limit - 1)])
    return { batches: await this.fieldOfEach<BatchSummary>(tenantId, numbers, 'sum'), total }
  }

  async all (tenantId: string) {
    return await this.fieldOfEach<Batch>(tenantId, await this.redis.zrevrange(keys.batches.index(tenantId), 0, -1), 'doc')
  }

  /** One JSON field of each batch, in this order, in one pipeline (one slot: the club's tag). */
  private async fieldOfEach<T> (tenantId: string, numbers: string[], field: 'doc' | 'sum'): Promise<T[]> {
    if (numbers.length === 0) return []
    const pipeline = this.redis.pipeline()
    for (const n of numbers) pipeline.hget(keys.batches.one(tenantId, n), field)
    const replies = await pipeline.exec() ?? []
    return replies.flatMap(([err, value]) => {
      if (err) throw err
      return typeof value === 'string' ? [JSON.parse(value) as T] : []
    })
  }

  async update<T> (tenantId: string, batchNumbers: string[], change: (batches: Batch[], draw: string | null) => BatchChange<T>, order?: string) {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      const [current, drawn] = await Promise.all([
        Promise.all(batchNumbers.map(async (n) => await this.redis.hmget(keys.batches.one(tenantId, n), 'doc', 'v'))),
        order === undefined ? null : this.drawOf(tenantId, order),
      ])
      if (current.some(([doc, v]) => !doc || !v)) return undefined
      const before = current.map(([doc]) => JSON.parse(doc as string) as Batch)
      const { batches, result, draw } = change(structuredClone(before), drawn)
      const writes = batches.map((after, i) => ({ version: current[i]?.[1] as string, before: before[i], after }))
      const orderWrite = order === undefined || draw === undefined ? undefined : { id: order, expected: drawn, next: draw }
      if (await this.write(tenantId, writes, orderWrite)) return result
    }
    throw new AppError('CONFLICT', 'The batch is being changed by others right now; try again')
  }

  async drawOf (tenantId: string, orderId: string) {
    return await this.redis.hget(keys.batches.draws(tenantId), orderId)
  }

  async offering (tenantId: string, variantId: string) {
    return await this.redis.zrange(keys.batches.offers(tenantId, variantId), 0, -1)
  }
}
