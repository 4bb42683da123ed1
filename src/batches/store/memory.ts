import { summarize, type Batch } from '../model.ts'
import { indexScore, offered, pageOf, touchedVariants, type BatchChange, type BatchQuery, type BatchStore } from './port.ts'

// Nothing awaits between a read and its write here, so every method is atomic in one process.
export class MemoryBatchStore implements BatchStore {
  private readonly clubs = new Map<string, Map<string, Batch>>()
  // club -> variant -> batch number -> best-before
  private readonly offers = new Map<string, Map<string, Map<string, number>>>()
  // club:order -> draw
  private readonly draws = new Map<string, string>()

  private batches (tenantId: string): Map<string, Batch> {
    let batches = this.clubs.get(tenantId)
    if (!batches) {
      batches = new Map()
      this.clubs.set(tenantId, batches)
    }
    return batches
  }

  private variantOffers (tenantId: string, variantId: string): Map<string, number> {
    let club = this.offers.get(tenantId)
    if (!club) {
      club = new Map()
      this.offers.set(tenantId, club)
    }
    let variant = club.get(variantId)
    if (!variant) {
      variant = new Map()
      club.set(variantId, variant)
    }
    return variant
  }

  private write (before: Batch | undefined, after: Batch): void {
    this.batches(after.tenantId).set(after.batchNumber, structuredClone(after))
    const now = offered(after)
    for (const variantId of touchedVariants(before, after)) {
      const score = now.get(variantId)
      if (score === undefined) this.variantOffers(after.tenantId, variantId).delete(after.batchNumber)
      else this.variantOffers(after.tenantId, variantId).set(after.batchNumber, score)
    }
  }

  async create (batch: Batch) {
    if (this.batches(batch.tenantId).has(batch.batchNumber)) return false
    this.write(undefined, batch)
    return true
  }

  async get (tenantId: string, batchNumber: string) {
    return structuredClone(this.batches(tenantId).get(batchNumber))
  }

  async list (tenantId: string, query: BatchQuery) {
    const newestFirst = [...this.batches(tenantId).values()]
      .sort((a, b) => indexScore(b) - indexScore(a) || b.batchNumber.localeCompare(a.batchNumber))
    return pageOf(newestFirst.map(summarize), query)
  }

  async all (tenantId: string) {
    return structuredClone([...this.batches(tenantId).values()])
  }

  async update<T> (tenantId: string, batchNumbers: string[], change: (batches: Batch[], draw: string | null) => BatchChange<T>, order?: string) {
    const current = batchNumbers.map((n) => this.batches(tenantId).get(n))
    if (current.some((b) => b === undefined)) return undefined
    const before = current as Batch[]
    const drawKey = `${tenantId}:${order ?? ''}`
    const { batches, result, draw } = change(structuredClone(before), this.draws.get(drawKey) ?? null)
    batches.forEach((after, i) => { this.write(before[i], after) })
    if (order !== undefined && draw !== undefined) {
      if (draw === null) this.draws.delete(drawKey)
      else this.draws.set(drawKey, draw)
    }
    return result
  }

  async drawOf (tenantId: string, orderId: string) {
    return this.draws.get(`${tenantId}:${orderId}`) ?? null
  }

  async offering (tenantId: string, variantId: string) {
    return [...this.variantOffers(tenantId, variantId).entries()].sort(([a, x], [b, y]) => x - y || a.localeCompare(b)).map(([n]) => n)
  }
}
