import { randomUUID } from 'node:crypto'
import {
  CROP_MACHINE_VERSION,
  frozenStatuses,
  harvestableStatuses,
  harvestMove,
  moveStatus,
  startHistory,
  validTransitions,
  type CropStatus,
} from '../../machines/crop.machine.ts'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Role } from '../tenants/roles.ts'
import type { Tenant } from '../tenants/model.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import { zonedDay } from '../tenants/time.ts'
import type { CatalogService } from './catalog.ts'
import type { Author, CropRecord, CropSummary, Harvest, Light, Plant, Space, Strain, TimelineEntry } from './model.ts'
import { nextPlantNumber, plantCodes } from './plant-codes.ts'
import type { CreateCropInput, HarvestInput, PatchCropInput, PatchHarvestInput, PlantsInput, TimelineInput } from './requests.ts'
import type { CropFilters, CropStore } from './store/index.ts'

/** Who sees and works the club's crops: its growers and admins, never a member. */
export const CROP_KEEPERS: readonly Role[] = ['grower', 'admin']

/** A crop with what its views show beside the record. */
export interface CropDetails {
  crop: CropRecord
  plants: Plant[]
  spaces: Space[]
  lights: Light[]
}

// A timeline entry may be dated a little ahead (a phone's clock, a time zone), not days ahead.
const FUTURE_TOLERANCE_MS = 24 * 3600 * 1000
// A default batch of plant codes is recomputed this often when others take the same codes first.
const PLANT_CODE_ATTEMPTS = 5

function callerAuthor (actor: Pick<Actor, 'sub' | 'name' | 'email'>): Author {
  return { id: actor.sub, name: actor.name ?? actor.email ?? actor.sub, ...(actor.email ? { email: actor.email } : {}) }
}

/** Keeps the timeline in date order; an entry goes after those of the same moment. */
function withEntry (timeline: TimelineEntry[], entry: TimelineEntry): TimelineEntry[] {
  const at = Date.parse(entry.date)
  const index = timeline.findIndex((e) => Date.parse(e.date) > at)
  return index === -1 ? [...timeline, entry] : [...timeline.slice(0, index), entry, ...timeline.slice(index)]
}

/** A move the crop machine refuses (409): where the crop is and where it may go from there. */
export class InvalidTransition extends AppError {
  readonly validTransitions: CropStatus[]

  constructor (readonly currentStatus: CropStatus, to: CropStatus) {
    const valid = validTransitions(currentStatus)
    const targets = valid.length > 0 ? valid.join(', ') : `none (${currentStatus} is final)`
    const message = `Invalid status transition from ${currentStatus} to ${to}. Valid transitions from ${currentStatus}: ${targets}`
    super('CONFLICT', message, { details: { currentStatus, validTransitions: valid } })
    this.validTransitions = valid
  }
}

function fieldError (field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: { errors: { [field]: [message] } } })
}

const cropNotFound = () => notFound('Crop')

/** A batch of the crop as its complete view lists it (the batches domain answers these). */
export interface CropBatch {
  batchNumber: string
  harvestId: string
  status: string
  gramsHarvested: number
  gramsAvailable: number
  gramsDispensed: number
  gramsOnHand: number
}

/** Told of a harvest written as STOCKED (its dry weight is set); must be idempotent. */
export type StockedListener = (tenant: Tenant, crop: CropRecord, harvest: Harvest) => Promise<void>

/** The crops domain's decisions; the lifecycle rules come from the crop machine. */
export class CropService {
  private readonly stockedListeners: StockedListener[] = []
  private batchesOf: (tenantId: string, cropId: string) => Promise<CropBatch[]> = async () => []

  constructor (
    private readonly crops: CropStore,
    private readonly catalog: CatalogService,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** A page of the club's crops that match every filter given, and how many match. */
  async list (actor: Actor, filters: CropFilters, page: { limit: number, offset: number }): Promise<{ crops: CropSummary[], count: number }> {
    requireRole(actor, CROP_KEEPERS)
    const { crops, total } = await this.crops.list(actor.tenant.id, { ...filters, ...page })
    return { crops, count: total }
  }

  async create (actor: Actor, input: CreateCropInput): Promise<CropRecord> {
    requireRole(actor, CROP_KEEPERS)
    const { tenant } = actor
    const spaceIds = input.spaces ?? []
    const lightIds = input.lights ?? []
    await this.catalog.require(tenant.id, 'spaces', spaceIds)
    await this.catalog.require(tenant.id, 'lights', lightIds)
    const strain = await this.catalog.strainFor(tenant.id, input.strain, input.strainName)
    const at = this.now().toISOString()
    const crop: CropRecord = {
      id: `crop_${randomUUID()}`,
      tenantId: tenant.id,
      machineVersion: CROP_MACHINE_VERSION,
      name: input.name,
      strain: { id: strain.id, name: strain.name },
      status: input.status,
      plantedAt: input.plantedAt ?? at,
      expectedHarvestDate: input.expectedHarvestDate ?? null,
      expectedYield: input.expectedYield ?? null,
      spaceIds,
      lightIds,
      pot: input.pot ?? null,
      seed: input.seed ? { id: input.seed } : null,
      timeline: [],
      statusHistory: startHistory(input.status, at),
      harvests: [],
      createdAt: at,
      updatedAt: at,
    }
    // Plants named on create are plants already tagged: their id is also their code.
    const plants = (input.plants ?? []).map((id) => ({ id, code: id, status: 'ACTIVE', cropId: crop.id }))
    const limit = tenant.plan.maxActiveCrops
    const created = await this.crops.create(crop, plants, limit)
    if (!created.ok) {
      if (created.reason === 'EXISTS') throw new Error('crop id collision')
      throw new AppError('LIMIT_EXCEEDED', `The plan allows ${limit} active crops; finish one before starting another`, {
        details: { current: created.current, limit },
      })
    }
    return crop
  }

  async get (actor: Actor, cropId: string): Promise<CropDetails> {
    const crop = await this.record(actor, cropId)
    const tenantId = actor.tenant.id
    const [plants, spaces, lights] = await Promise.all([
      this.crops.plants(tenantId, cropId),
      this.catalog.some(tenantId, 'spaces', crop.spaceIds),
      this.catalog.some(tenantId, 'lights', crop.lightIds),
    ])
    return { crop, plants, spaces, lights }
  }

  async record (actor: Actor, cropId: string): Promise<CropRecord> {
    requireRole(actor, CROP_KEEPERS)
    const crop = await this.crops.get(actor.tenant.id, cropId)
    if (!crop) throw cropNotFound()
    return crop
  }

  /** The complete view: the crop, its strain, its harvests and the batches they became. */
  async complete (actor: Actor, cropId: string): Promise<CropDetails & { strain: Strain, batches: CropBatch[] }> {
    const details = await this.get(actor, cropId)
    const { strain } = details.crop
    // Catalog entries are never removed; a crop of an older catalog still shows its strain by name.
    const [found, batches] = await Promise.all([this.catalog.strain(actor.tenant.id, strain.id), this.batchesOf(actor.tenant.id, cropId)])
    return { ...details, strain: found ?? { ...strain, type: 'UNKNOWN', cannabinoids: { thc: 0, cbd: 0 } }, batches }
  }

  /** Where the complete view finds the crop's batches (the batches domain, which imports this one). */
  listBatchesWith (batchesOf: (tenantId: string, cropId: string) => Promise<CropBatch[]>): void {
    this.batchesOf = batchesOf
  }

  async patch (actor: Actor, cropId: string, input: PatchCropInput): Promise<CropDetails> {
    requireRole(actor, CROP_KEEPERS)
    const tenantId = actor.tenant.id
    if (input.spaces) await this.catalog.require(tenantId, 'spaces', input.spaces)
    if (input.lights) await this.catalog.require(tenantId, 'lights', input.lights)
    let strain: Strain | undefined
    if (input.strain !== undefined) {
      // The crop first, so that a new strain does not join the catalog for a crop that does not exist.
      await this.record(actor, cropId)
      strain = await this.catalog.strainFor(tenantId, input.strain, input.strainName)
    }
    const at = this.now().toISOString()
    const updated = await this.crops.update(tenantId, cropId, (crop) => {
      const next: CropRecord = { ...crop, updatedAt: at }
      if (input.name !== undefined) next.name = input.name
      if (strain) next.strain = { id: strain.id, name: strain.name }
      if (input.plantedAt !== undefined) next.plantedAt = input.plantedAt
      if (input.expectedYield !== undefined) next.expectedYield = input.expectedYield
      if (input.expectedHarvestDate !== undefined) next.expectedHarvestDate = input.expectedHarvestDate
      if (input.pot !== undefined) next.pot = input.pot
      if (input.seed !== undefined) next.seed = input.seed === null ? null : { id: input.seed }
      if (input.spaces) next.spaceIds = input.spaces
      if (input.lights) next.lightIds = input.lights
      return { crop: next, result: next }
    })
    if (!updated) throw cropNotFound()
    return await this.get(actor, cropId)
  }

  async remove (actor: Actor, cropId: string): Promise<void> {
    requireRole(actor, CROP_KEEPERS)
    if (!await this.crops.remove(actor.tenant.id, cropId)) throw cropNotFound()
  }

  /** The status route: the machine decides; the open history entry closes at the moment of the move. */
  async move (actor: Actor, cropId: string, input: { newStatus: CropStatus, notes?: string | undefined, author?: Author | undefined }) {
    requireRole(actor, CROP_KEEPERS)
    const { tenant } = actor
    const at = this.now().toISOString()
    const moved = await this.crops.update(tenant.id, cropId, (crop) => {
      const next = moveStatus(crop, input.newStatus, at)
      if (!next) throw new InvalidTransition(crop.status, input.newStatus)
      const timestamp = next.statusHistory.at(-1)?.start ?? at
      const entry: TimelineEntry = {
        type: 'OBSERVATION',
        date: timestamp,
        data: { fromStatus: crop.status, toStatus: next.status },
        notes: input.notes ?? `Status changed from ${crop.status} to ${next.status}`,
        evidences: [],
        author: input.author ?? callerAuthor(actor),
      }
      const updated = { ...crop, ...next, timeline: withEntry(crop.timeline, entry), updatedAt: at }
      return { crop: updated, result: { crop: updated, transition: { from: crop.status, to: next.status, timestamp } } }
    })
    if (!moved) throw cropNotFound()
    return moved
  }

  async addTimeline (actor: Actor, cropId: string, input: TimelineInput) {
    requireRole(actor, CROP_KEEPERS)
    const { tenant } = actor
    const now = this.now()
    const date = input.date ?? now.toISOString()
    if (Date.parse(date) > now.getTime() + FUTURE_TOLERANCE_MS) throw fieldError('date', 'Must not be more than a day in the future')
    const entry: TimelineEntry = {
      type: input.type,
      date,
      data: input.data,
      notes: input.notes ?? '',
      evidences: input.evidences ?? [],
      author: input.author ?? callerAuthor(actor),
    }
    const crop = await this.crops.update(tenant.id, cropId, (current) => {
      const next = { ...current, timeline: withEntry(current.timeline, entry), updatedAt: now.toISOString() }
      return { crop: next, result: next }
    })
    if (!crop) throw cropNotFound()
    return { entry, crop }
  }

  async plants (actor: Actor, cropId: string): Promise<Plant[]> {
    await this.record(actor, cropId)
    return await this.crops.plants(actor.tenant.id, cropId)
  }

  /** Adds `count` plants with codes prefix + number; no codes repeat within the crop, none in a frozen crop. */
  async addPlants (actor: Actor, cropId: string, input: PlantsInput): Promise<Plant[]> {
    requireRole(actor, CROP_KEEPERS)
    const tenantId = actor.tenant.id
    for (let attempt = 1; ; attempt++) {
      const start = input.startCode ?? nextPlantNumber((await this.plants(actor, cropId)).map((p) => p.code), input.prefix)
      const plants = plantCodes(input.prefix, start, input.count)
        .map((code) => ({ id: `plant_${randomUUID()}`, code, status: input.status, cropId }))
      const added = await this.crops.addPlants(tenantId, cropId, plants, frozenStatuses)
      if (added.ok) {
        // The plants live beside the record, yet they are a field of the crop: the crop changed.
        await this.crops.update(tenantId, cropId, (crop) => ({ crop: { ...crop, updatedAt: this.now().toISOString() }, result: true }))
        return plants
      }
      if (added.reason === 'NOT_FOUND') throw cropNotFound()
      if (added.reason === 'FROZEN') {
        throw conflict(`The crop is ${added.status}: no new plants from ${frozenStatuses[0]} on`, { currentStatus: added.status })
      }
      if (input.startCode !== undefined || attempt >= PLANT_CODE_ATTEMPTS) {
        const shown = added.codes.slice(0, 10).join(', ') + (added.codes.length > 10 ? ', ...' : '')
        throw new AppError('DUPLICATE_RESOURCE', `Plant codes already used in this crop: ${shown}`, { details: { codes: added.codes } })
      }
    }
  }

  /** A harvest in FLOWERING or HARVESTING: the crop moves to DRYING, or stays (returns to) FLOWERING. */
  async harvest (actor: Actor, cropId: string, input: HarvestInput) {
    requireRole(actor, CROP_KEEPERS)
    const { tenant } = actor
    const current = await this.record(actor, cropId)
    const notHarvestable = (status: CropStatus) =>
      conflict(`The crop is ${status}: harvests are recorded in ${harvestableStatuses.join(' or ')}`, { currentStatus: status })
    if (!harvestMove(current, input.continueFlowering, this.now().toISOString())) throw notHarvestable(current.status)
    // Taken before the write: a harvest refused by a race in between leaves a gap, never a repeat.
    const seq = await this.crops.nextBatchNumber(tenant.id)
    const now = this.now()
    const at = now.toISOString()
    // The harvest's day is the club's, as its growers read the calendar.
    const batchNumber = `B-${zonedDay(now.getTime(), tenant.timeZone).replaceAll('-', '')}-${String(seq).padStart(4, '0')}`
    const done = await this.crops.update(tenant.id, cropId, (crop) => {
      const next = harvestMove(crop, input.continueFlowering, at)
      if (!next) throw notHarvestable(crop.status)
      const harvest: Harvest = {
        id: `harvest_${randomUUID()}`,
        cropId,
        name: input.name ?? `${crop.name} #${crop.harvests.length + 1}`,
        status: 'DRYING',
        wetWeight: input.wetWeight,
        dryWeight: null,
        quality: input.quality ?? null,
        batchNumber,
        moisture: null,
        notes: input.notes ?? '',
        storageLocation: input.storageLocation ?? null,
        createdAt: at,
        updatedAt: at,
      }
      const entry: TimelineEntry = {
        type: 'HARVESTING',
        date: at,
        data: { harvestId: harvest.id, batchNumber, wetWeight: input.wetWeight },
        notes: input.notes ?? '',
        evidences: [],
        author: callerAuthor(actor),
      }
      const updated = { ...crop, ...next, harvests: [...crop.harvests, harvest], timeline: withEntry(crop.timeline, entry), updatedAt: at }
      const message = `Harvest ${batchNumber} recorded; the crop ${next.status === crop.status ? 'stays in' : 'moved to'} ${next.status}`
      return { crop: updated, result: { harvest, crop: updated, message } }
    })
    if (!done) throw cropNotFound()
    return done
  }

  async updateHarvest (actor: Actor, cropId: string, harvestId: string, input: PatchHarvestInput): Promise<Harvest> {
    requireRole(actor, CROP_KEEPERS)
    const at = this.now().toISOString()
    const updated = await this.crops.update(actor.tenant.id, cropId, (crop) => {
      const harvest = crop.harvests.find((h) => h.id === harvestId)
      if (!harvest) throw notFound('Harvest')
      if (input.dryWeight !== undefined && input.dryWeight > harvest.wetWeight) {
        throw fieldError('dryWeight', `Must not exceed the wet weight (${harvest.wetWeight} g)`)
      }
      const next: Harvest = { ...harvest, ...definedOnly(input), updatedAt: at }
      if (next.status === 'STOCKED' && next.dryWeight === null) throw conflict('Record dryWeight before the harvest is STOCKED')
      const changed = { ...crop, harvests: crop.harvests.map((h) => h.id === harvestId ? next : h), updatedAt: at }
      return { crop: changed, result: { harvest: next, crop: changed } }
    })
    if (!updated) throw cropNotFound()
    // Told on every write of a stocked harvest, not only the move: a listener that failed once runs again on the
    // next PATCH, so listeners must be idempotent.
    if (updated.harvest.status === 'STOCKED') {
      for (const listener of this.stockedListeners) await listener(actor.tenant, updated.crop, updated.harvest)
    }
    return updated.harvest
  }

  /** Every STOCKED harvest with its dry weight, harvested in [fromMs, toMs), with its crop's strain (the stock report). */
  async stockedHarvests (
    actor: Actor, fromMs: number, toMs: number
  ): Promise<Array<{ cropId: string, strain: { id: string, name: string }, harvest: Harvest }>> {
    requireRole(actor, CROP_KEEPERS)
    const found: Array<{ cropId: string, strain: { id: string, name: string }, harvest: Harvest }> = []
    const PAGE = 100
    for (let offset = 0; ; offset += PAGE) {
      const { crops, total } = await this.crops.list(actor.tenant.id, { limit: PAGE, offset })
      const records = await Promise.all(crops.map(async (c) => await this.crops.get(actor.tenant.id, c.id)))
      for (const crop of records) {
        for (const harvest of crop?.harvests ?? []) {
          const at = Date.parse(harvest.createdAt)
          if (crop && harvest.status === 'STOCKED' && harvest.dryWeight !== null && at >= fromMs && at < toMs) {
            found.push({
              cropId: crop.id, strain: crop.strain, harvest
            })
          }
        }
      }
      if (offset + PAGE >= total) return found
    }
  }

  /** Whether the club's catalog has this strain (products name the strain they come from). */
  async hasStrain (tenantId: string, strainId: string): Promise<boolean> {
    return await this.catalog.strain(tenantId, strainId) !== undefined
  }

  /** Someone to tell when a harvest is written as STOCKED with its dry weight (the batches domain). */
  onStocked (listener: StockedListener): void {
    this.stockedListeners.push(listener)
  }
}

function definedOnly<T extends object> (input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>
}
