import { randomUUID } from 'node:crypto'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Medusa } from '../commerce/medusa.ts'
import type { CropRecord, Harvest } from '../crops/model.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { ProductService } from '../products/service.ts'
import type { Locks } from '../stores/locks.ts'
import { keys } from '../stores/keys.ts'
import type { Role } from '../tenants/roles.ts'
import type { Tenant } from '../tenants/model.ts'
import { toGrams, toMg, type ActorRef, type Batch, type LabResult, type Packaging } from './model.ts'
import type { BatchFilters, BatchStore } from './store/index.ts'

/** Who sees and works the club's batches: its growers and admins, never a member. */
export const BATCH_KEEPERS: readonly Role[] = ['grower', 'admin']

/** A batch is good for this long after its harvest unless someone says otherwise (PATCH bestBefore). */
export const DEFAULT_SHELF_LIFE_MONTHS = 12

// A lab date may be a little ahead (a phone's clock, a time zone), not days ahead.
const FUTURE_TOLERANCE_MS = 24 * 3600 * 1000

export const batchNotFound = (): AppError => notFound('Batch')

export function fieldError (field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: { errors: { [field]: [message] } } })
}

export function actorRef (actor: Pick<Actor, 'sub' | 'name' | 'email'>): ActorRef {
  return { id: actor.sub, name: actor.name ?? actor.email ?? actor.sub }
}

function monthsAfter (iso: string, months: number): string {
  const d = new Date(iso)
  d.setUTCMonth(d.getUTCMonth() + months)
  return d.toISOString()
}

export interface LabInput {
  thcPercent: number
  cbdPercent: number
  reportRef: string
  testedAt?: string | undefined
}

/** What a batch's work needs beyond its store: the club's products and stock in its commerce backend. */
export interface BatchDeps {
  products: ProductService
  medusaFor: (tenant: Tenant) => Medusa
  locks: Locks
}

// A variant's stock is read and set under a lock (Medusa sets levels, it does not add to them).
const STOCK_LOCK = { ttlMs: 30_000, waitMs: 10_000 }

function notEnough (batch: Batch, mg: number): AppError {
  return conflict(`The batch holds ${toGrams(batch.bulkMg)} g not yet packaged; ${toGrams(mg)} g asked`, {
    availableGrams: toGrams(batch.bulkMg), requestedGrams: toGrams(mg),
  })
}

const recalled = (batch: Batch): AppError => conflict(`Batch ${batch.batchNumber} was recalled on ${batch.recall?.at ?? ''}: nothing more is packaged from it`)

/** The batches domain's decisions: what a batch holds, where its grams went, and who may change it. */
export class BatchService {
  constructor (
    readonly store: BatchStore,
    private readonly deps: BatchDeps,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** A harvest written as STOCKED becomes the batch of its number, once (a second call changes nothing). */
  async fromHarvest (tenant: Tenant, crop: CropRecord, harvest: Harvest): Promise<void> {
    if (harvest.status !== 'STOCKED' || harvest.dryWeight === null) return
    const at = this.now().toISOString()
    const batch: Batch = {
      batchNumber: harvest.batchNumber,
      tenantId: tenant.id,
      cropId: crop.id,
      harvestId: harvest.id,
      strain: { ...crop.strain },
      harvestedAt: harvest.createdAt,
      bestBefore: monthsAfter(harvest.createdAt, DEFAULT_SHELF_LIFE_MONTHS),
      harvestedMg: toMg(harvest.dryWeight),
      bulkMg: toMg(harvest.dryWeight),
      lab: null,
      labHistory: [],
      shelf: [],
      packagings: [],
      destructions: [],
      dispensations: [],
      recall: null,
      createdAt: at,
      updatedAt: at,
    }
    await this.store.create(batch)
  }

  async list (actor: Actor, filters: BatchFilters, page: { limit: number, offset: number }) {
    requireRole(actor, BATCH_KEEPERS)
    const { batches, total } = await this.store.list(actor.tenant.id, { ...filters, ...page })
    return { batches, count: total }
  }

  async get (actor: Actor, batchNumber: string): Promise<Batch> {
    requireRole(actor, BATCH_KEEPERS)
    const batch = await this.store.get(actor.tenant.id, batchNumber)
    if (!batch) throw batchNotFound()
    return batch
  }

  /** The batches of one crop (its complete view). */
  async ofCrop (actor: Actor, cropId: string): Promise<Batch[]> {
    requireRole(actor, BATCH_KEEPERS)
    return (await this.store.all(actor.tenant.id)).filter((b) => b.cropId === cropId).sort((a, b) => a.harvestedAt.localeCompare(b.harvestedAt))
  }

  /** Records a lab's analysis; the newest one is the batch's THC and CBD from now on (earlier ones are kept). */
  async addLab (actor: Actor, batchNumber: string, input: LabInput): Promise<Batch> {
    requireRole(actor, BATCH_KEEPERS)
    const now = this.now()
    const testedAt = input.testedAt ?? now.toISOString()
    if (Date.parse(testedAt) > now.getTime() + FUTURE_TOLERANCE_MS) throw fieldError('testedAt', 'Must not be more than a day in the future')
    if (input.thcPercent + input.cbdPercent > 100) throw fieldError('cbdPercent', 'THC and CBD together must not exceed 100 %')
    const lab: LabResult = { ...input, testedAt, recordedAt: now.toISOString(), recordedBy: actorRef(actor) }
    return await this.change(actor, batchNumber, (batch) => ({ ...batch, lab, labHistory: [...batch.labHistory, lab] }))
  }

  async setBestBefore (actor: Actor, batchNumber: string, bestBefore: string): Promise<Batch> {
    requireRole(actor, BATCH_KEEPERS)
    return await this.change(actor, batchNumber, (batch) => {
      if (Date.parse(bestBefore) <= Date.parse(batch.harvestedAt)) throw fieldError('bestBefore', 'Must be after the harvest date')
      return { ...batch, bestBefore }
    })
  }

  /**
   * Draws `units x grams per unit` from the batch and adds the units to the variant's stock at the club's
   * location. The grams are reserved first (a pending packaging), then the backend is told, then the units go on
   * the shelf; when the backend's write fails the reservation is given back, so the batch is as it was.
   */
  async package (actor: Actor, batchNumber: string, input: { variantId: string, units: number }): Promise<{ batch: Batch, packaging: Packaging, stocked: number }> {
    requireRole(actor, BATCH_KEEPERS)
    const { tenant } = actor
    const batch = await this.get(actor, batchNumber)
    if (batch.recall) throw recalled(batch)
    const { product, variant } = await this.deps.products.variant(tenant, input.variantId)
    if (variant.gramsPerUnit === null) {
      throw fieldError('variantId', `Variant ${variant.id} (${product.title} ${variant.title}) has no grams per unit: it is not a controlled product (PATCH /api/products/{id} sets gramsPerUnit)`)
    }
    if (!variant.inventoryItemId) throw fieldError('variantId', `Variant ${variant.id} keeps no stock in the commerce backend`)
    if (product.strainId !== null && product.strainId !== batch.strain.id) {
      throw conflict(`${product.title} is made from strain ${product.strainId}; batch ${batchNumber} is ${batch.strain.id} (${batch.strain.name})`)
    }
    const mgPerUnit = toMg(variant.gramsPerUnit)
    const mg = input.units * mgPerUnit
    const packaging: Packaging = { id: `pkg_${randomUUID()}`, variantId: variant.id, units: input.units, mg, state: 'pending', at: this.now().toISOString(), by: actorRef(actor) }
    await this.change(actor, batchNumber, (b) => {
      if (b.recall) throw recalled(b)
      if (b.bulkMg < mg) throw notEnough(b, mg)
      return { ...b, bulkMg: b.bulkMg - mg, packagings: [...b.packagings, packaging] }
    })
    let stocked: number
    try {
      stocked = await this.addStock(tenant, variant.inventoryItemId, input.units)
    } catch (err) {
      await this.change(actor, batchNumber, (b) => ({ ...b, bulkMg: b.bulkMg + mg, packagings: b.packagings.filter((p) => p.id !== packaging.id) }))
      throw err
    }
    const done = await this.change(actor, batchNumber, (b) => {
      const line = b.shelf.find((l) => l.variantId === variant.id && l.mgPerUnit === mgPerUnit)
      const shelf = line
        ? b.shelf.map((l) => l === line ? { ...l, packaged: l.packaged + input.units } : l)
        : [...b.shelf, { variantId: variant.id, productId: product.id, title: `${product.title} ${variant.title}`, mgPerUnit, packaged: input.units, dispensed: 0, withdrawn: 0 }]
      return { ...b, shelf, packagings: b.packagings.map((p) => p.id === packaging.id ? { ...p, state: 'done' as const } : p) }
    })
    return { batch: done, packaging: { ...packaging, state: 'done' }, stocked }
  }

  /**
   * Adds units to the variant's stock at the club's location; answers the new stocked quantity. A write whose
   * answer was lost may still have landed: the level is read again, and only a level that did not move is a failure.
   */
  private async addStock (tenant: Tenant, inventoryItemId: string, units: number): Promise<number> {
    const medusa = this.deps.medusaFor(tenant)
    return await this.deps.locks.withLock(keys.batches.stockLock(tenant.id, inventoryItemId), STOCK_LOCK, async () => {
      const current = await medusa.stockedAtClub(inventoryItemId)
      const target = (current ?? 0) + units
      try {
        await medusa.setStockedAtClub(inventoryItemId, target, current !== undefined)
      } catch (err) {
        const now = await medusa.stockedAtClub(inventoryItemId).catch(() => current)
        if (now !== target) throw err
      }
      return target
    })
  }

  /** Records grams destroyed or lost, taken from what is not yet packaged. */
  async destroy (actor: Actor, batchNumber: string, input: { grams: number, reason: string }): Promise<Batch> {
    requireRole(actor, BATCH_KEEPERS)
    const mg = toMg(input.grams)
    if (mg <= 0) throw fieldError('grams', 'Must be at least 0.001 g')
    const destruction = { id: `dst_${randomUUID()}`, mg, reason: input.reason, at: this.now().toISOString(), by: actorRef(actor) }
    return await this.change(actor, batchNumber, (b) => {
      if (b.bulkMg < mg) throw notEnough(b, mg)
      return { ...b, bulkMg: b.bulkMg - mg, destructions: [...b.destructions, destruction] }
    })
  }

  /** One batch changed by a pure function, stamped. */
  private async change (actor: Actor, batchNumber: string, apply: (batch: Batch) => Batch): Promise<Batch> {
    const at = this.now().toISOString()
    const changed = await this.store.update(actor.tenant.id, [batchNumber], ([batch]) => {
      const next = { ...apply(batch as Batch), updatedAt: at }
      return { batches: [next], result: next }
    })
    if (!changed) throw batchNotFound()
    return changed
  }
}
