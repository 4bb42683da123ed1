import { randomUUID } from 'node:crypto'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Medusa } from '../commerce/medusa.ts'
import type { Notifier } from '../notifications/types.ts'
import { recallNotice } from './notices.ts'
import type { CropRecord, Harvest } from '../crops/model.ts'
import type { CropService } from '../crops/service.ts'
import { zonedDayStartMs } from '../tenants/time.ts'
import { stockReport } from './report.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { ProductService } from '../products/service.ts'
import type { Locks } from '../stores/locks.ts'
import { keys } from '../stores/keys.ts'
import type { Role } from '../tenants/roles.ts'
import type { Tenant } from '../tenants/model.ts'
import {
  commitPackaging, destroy, drawOrder, NotEnough, recall, Recalled, releasePackaging, reservePackaging, undrawOrder, type DrawInput, type OrderDraw
} from './books.ts'
import { toGrams, toMg, type ActorRef, type Batch, type Dispensation, type LabResult, type Packaging } from './model.ts'
import type { BatchFilters, BatchStore } from './store/index.ts'

/** Who sees and works the club's batches: its growers and admins, never a member. */
export const BATCH_KEEPERS: readonly Role[] = ['grower', 'admin']

/** A batch is good for this long after its harvest unless someone says otherwise (PATCH bestBefore). */
const DEFAULT_SHELF_LIFE_MONTHS = 12

// A lab date may be a little ahead (a phone's clock, a time zone), not days ahead.
const FUTURE_TOLERANCE_MS = 24 * 3600 * 1000

const batchNotFound = (): AppError => notFound('Batch')

function fieldError (field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: { errors: { [field]: [message] } } })
}

function actorRef (actor: Pick<Actor, 'sub' | 'name' | 'email'>): ActorRef {
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
  notifier: Notifier
  crops: CropService
}

/** Who may read a batch's info sheet: members too (it goes with what they receive). */
export const INFO_SHEET_READERS: readonly Role[] = ['member', 'grower', 'admin']

/** Who may recall a batch: admins (it takes units off sale and writes to every member who got some). */
export const BATCH_RECALLERS: readonly Role[] = ['admin']

/** One dispensation a recall concerns. */
export type AffectedDispensation = Pick<Dispensation, 'orderId' | 'memberId' | 'variantId' | 'units' | 'mg' | 'at'> & { dispensationId: string }

// A variant's stock is read and set under a lock (Medusa sets levels, it does not add to them).
const STOCK_LOCK = { ttlMs: 30_000, waitMs: 10_000 }

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

  /** The batch as its info sheet prints it: any batch of the club, for anyone of it. */
  async forInfoSheet (actor: Actor, batchNumber: string): Promise<Batch> {
    requireRole(actor, INFO_SHEET_READERS)
    const batch = await this.store.get(actor.tenant.id, batchNumber)
    if (!batch) throw batchNotFound()
    return batch
  }

  /** The batches of one crop (its complete view, which checked the caller). */
  async ofCrop (tenantId: string, cropId: string): Promise<Batch[]> {
    return (await this.store.all(tenantId)).filter((b) => b.cropId === cropId).sort((a, b) => a.harvestedAt.localeCompare(b.harvestedAt))
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
  async package (actor: Actor, batchNumber: string, input: { variantId: string, units: number }): Promise<{
    batch: Batch, packaging: Packaging, stocked: number
  }> {
    requireRole(actor, BATCH_KEEPERS)
    const { tenant } = actor
    const batch = await this.get(actor, batchNumber)
    if (batch.recall) throw conflict(`Batch ${batchNumber} was recalled on ${batch.recall.at}: nothing more is packaged from it`)
    const { product, variant } = await this.deps.products.variant(tenant, input.variantId)
    if (variant.gramsPerUnit === null) {
      throw fieldError(
        'variantId',
        `Variant ${variant.id} (${product.title} ${variant.title}) has no grams per unit: ` +
          'it is not a controlled product (PATCH /api/products/{id} sets gramsPerUnit)'
      )
    }
    if (!variant.inventoryItemId) throw fieldError('variantId', `Variant ${variant.id} keeps no stock in the commerce backend`)
    if (product.strainId !== null && product.strainId !== batch.strain.id) {
      throw conflict(`${product.title} is made from strain ${product.strainId}; batch ${batchNumber} is ${batch.strain.id} (${batch.strain.name})`)
    }
    const mgPerUnit = toMg(variant.gramsPerUnit)
    const packaging: Packaging = {
      id: `pkg_${randomUUID()}`,
      variantId: variant.id,
      units: input.units,
      mg: input.units * mgPerUnit,
      state: 'pending',
      at: this.now().toISOString(),
      by: actorRef(actor),
    }
    await this.change(actor, batchNumber, (b) => reservePackaging(b, packaging))
    let stocked: number
    try {
      stocked = await this.addStock(tenant, variant.inventoryItemId, input.units)
    } catch (err) {
      await this.change(actor, batchNumber, (b) => releasePackaging(b, packaging.id))
      throw err
    }
    const done = await this.change(actor, batchNumber, (b) =>
      commitPackaging(b, packaging.id, { productId: product.id, title: `${product.title} ${variant.title}` }))
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
    return await this.change(actor, batchNumber, (b) =>
      destroy(b, { id: `dst_${randomUUID()}`, mg, reason: input.reason, at: this.now().toISOString(), by: actorRef(actor) }))
  }

  /**
   * A handover's lines drawn from the batches packaged into their variants, earliest best-before first; the
   * answer names, per line, the batch, units, grams and the batch's THC and CBD. Drawn once per order: a handover
   * retried answers the first draw.
   */
  async draw (tenant: Tenant, input: DrawInput): Promise<OrderDraw> {
    const known = await this.store.drawOf(tenant.id, input.orderId)
    if (known) return JSON.parse(known) as OrderDraw
    const variants = [...new Set(input.lines.map((l) => l.variantId))]
    const numbers = [...new Set((await Promise.all(variants.map(async (v) => await this.store.offering(tenant.id, v)))).flat())]
    const drawn = await this.store.update(tenant.id, numbers, (batches, existing) => {
      if (existing) return { batches, result: JSON.parse(existing) as OrderDraw, draw: existing }
      const { batches: next, draw } = drawOrder(batches, input)
      return { batches: next, result: draw, draw: JSON.stringify(draw) }
    }, input.orderId)
    if (!drawn) throw new Error('a batch offered for a variant is gone')
    return drawn
  }

  /** The lab THC of each batch offering units of the variant (null: no lab result yet), earliest best-before first. */
  async offeredLabThc (tenant: Tenant, variantId: string): Promise<Array<number | null>> {
    const numbers = await this.store.offering(tenant.id, variantId)
    const found = await Promise.all(numbers.map(async (n) => await this.store.get(tenant.id, n)))
    return found.flatMap((b) => b ? [b.lab?.thcPercent ?? null] : [])
  }

  /** Undoes an order's drawn lines (of one variant, or all): a reversing entry of the dispensing record. */
  async undraw (tenant: Tenant, orderId: string, variantId?: string): Promise<OrderDraw | undefined> {
    const known = await this.store.drawOf(tenant.id, orderId)
    if (!known) return undefined
    const numbers = [...new Set((JSON.parse(known) as OrderDraw).lines.map((l) => l.batchNumber))]
    const at = this.now().toISOString()
    return await this.store.update(tenant.id, numbers, (batches, existing) => {
      if (!existing) return { batches, result: undefined }
      const { batches: next, draw } = undrawOrder(batches, JSON.parse(existing) as OrderDraw, at, variantId)
      return { batches: next, result: draw, draw: JSON.stringify(draw) }
    }, orderId)
  }

  /**
   * Recalls the batch: its units still on the shelf are taken off sale (nothing more is drawn from it, and their
   * units leave the variant's stock at the club's location), and every member who received any of it is told,
   * in-app and in the chat, once each. Recorded on the batch for good; a second call finishes what the first could
   * not (a stock write that failed, a notice not sent) and changes nothing else.
   */
  async recall (actor: Actor, batchNumber: string, reason: string): Promise<{ batch: Batch, affected: AffectedDispensation[] }> {
    requireRole(actor, BATCH_RECALLERS)
    const { tenant } = actor
    let batch = await this.get(actor, batchNumber)
    if (!batch.recall) {
      const by = actorRef(actor)
      batch = await this.change(actor, batchNumber, (b) => b.recall ? b : recall(b, { reason, at: this.now().toISOString(), by }))
    }
    const recalled = batch.recall
    if (!recalled) throw new Error('a recall was just written')
    for (const [index, entry] of recalled.stock.entries()) {
      if (entry.done) continue
      const { variant } = await this.deps.products.variant(tenant, entry.variantId)
      if (variant.inventoryItemId) await this.removeStock(tenant, variant.inventoryItemId, entry.units)
      batch = await this.change(actor, batchNumber, (b) => {
        if (!b.recall) return b
        return { ...b, recall: { ...b.recall, stock: b.recall.stock.map((s, i) => i === index ? { ...s, done: true } : s) } }
      })
    }
    const affected = batch.dispensations.filter((d) => recalled.dispensationIds.includes(d.id))
      .map((d) => ({ dispensationId: d.id, orderId: d.orderId, memberId: d.memberId, variantId: d.variantId, units: d.units, mg: d.mg, at: d.at }))
    // The notice's externalId is the batch's: each member is told once, however often this runs.
    for (const memberId of new Set(affected.map((d) => d.memberId))) {
      await this.deps.notifier.notify(recallNotice(tenant, batch, memberId))
    }
    return { batch, affected }
  }

  /** Takes units out of the variant's stock at the club's location, never below what open orders reserved. */
  private async removeStock (tenant: Tenant, inventoryItemId: string, units: number): Promise<void> {
    const medusa = this.deps.medusaFor(tenant)
    await this.deps.locks.withLock(keys.batches.stockLock(tenant.id, inventoryItemId), STOCK_LOCK, async () => {
      const level = await medusa.levelAtClub(inventoryItemId)
      if (!level) return
      const target = Math.max(level.reserved, level.stocked - units)
      if (target !== level.stocked) await medusa.setStockedAtClub(inventoryItemId, target, true)
    })
  }

  /** The stock report of a calendar year of the club: per strain, the year's harvests and where their grams went. */
  async stockReport (actor: Actor, year: number) {
    requireRole(actor, BATCH_KEEPERS)
    const from = zonedDayStartMs(`${year}-01-01`, actor.tenant.timeZone)
    const to = zonedDayStartMs(`${year + 1}-01-01`, actor.tenant.timeZone)
    const [harvests, all] = await Promise.all([this.deps.crops.stockedHarvests(actor, from, to), this.store.all(actor.tenant.id)])
    const batches = all.filter((b) => Date.parse(b.harvestedAt) >= from && Date.parse(b.harvestedAt) < to)
    return { year, ...stockReport(harvests, batches) }
  }

  /** One batch changed by a pure function, stamped; the books' refusals become the API's. */
  private async change (actor: Actor, batchNumber: string, apply: (batch: Batch) => Batch): Promise<Batch> {
    const at = this.now().toISOString()
    try {
      const changed = await this.store.update(actor.tenant.id, [batchNumber], ([batch]) => {
        const next = { ...apply(batch as Batch), updatedAt: at }
        return { batches: [next], result: next }
      })
      if (!changed) throw batchNotFound()
      return changed
    } catch (err) {
      if (err instanceof NotEnough) {
        throw conflict(`The batch holds ${toGrams(err.heldMg)} g not yet packaged; ${toGrams(err.askedMg)} g asked`, {
          availableGrams: toGrams(err.heldMg), requestedGrams: toGrams(err.askedMg),
        })
      }
      if (err instanceof Recalled) throw conflict(`Batch ${err.batchNumber} was recalled: nothing more is packaged from it`)
      throw err
    }
  }
}
