import { requireRole, type Actor } from '../auth/actor.ts'
import type { CropRecord, Harvest } from '../crops/model.ts'
import { AppError, notFound } from '../errors.ts'
import type { Role } from '../tenants/roles.ts'
import type { Tenant } from '../tenants/model.ts'
import { toMg, type ActorRef, type Batch, type LabResult } from './model.ts'
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

/** The batches domain's decisions: what a batch holds, where its grams went, and who may change it. */
export class BatchService {
  constructor (
    readonly store: BatchStore,
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
