import { requireRole, type Actor } from '../../auth/actor.ts'
import { AppError, conflict, notFound } from '../../errors.ts'
import type { Tenant } from '../../tenants/model.ts'
import type { Role } from '../../tenants/roles.ts'
import { rulesOf } from '../../tenants/rules.ts'
import { zonedDay, zonedDayStartMs } from '../../tenants/time.ts'
import type { DispensingService } from '../service.ts'
import { isCalendarDay } from '../standing.ts'
import { NO_BATCHES, type BatchSource, type HandoverLines } from './batches.ts'
import { chain, verify, type EntryContent, type LedgerEntry, type Verification } from './chain.ts'
import type { AppendGuard, LedgerStore } from './store/index.ts'

// The club's dispensing record: written by a handover, corrected only by a reversing entry, verified end to end,
// listed and summed for an inspector, and thinned by the daily job once entries pass the club's retention.

/** Who reads the record and reverses an entry: the club's admins (an inspector reads it through them). */
export const RECORD_KEEPERS: readonly Role[] = ['admin']

const APPEND_ATTEMPTS = 20
const VERIFY_CHUNK = 2000
const RETENTION_BATCH = 1000
const round = (n: number, places = 3): number => Math.round(n * 10 ** places) / 10 ** places

export interface HandoverRecord extends HandoverLines {
  memberName: string
  memberBirthYear: number | null
  staff: { id: string, name: string }
}

export interface ListFilter {
  memberId?: string | undefined
  productId?: string | undefined
  /** Club days, inclusive. */
  from?: string | undefined
  to?: string | undefined
  limit: number
  offset: number
}

export interface StrainReport {
  productId: string | null, product: string, grams: number, thcPercent: number | null, cbdPercent: number | null, dispensations: number
}
export interface MemberReport { memberId: string, memberName: string, memberBirthYear: number | null, grams: number, dispensations: number }

const entrySeq = (id: string): number | undefined => {
  const m = /^dsp_(\d{1,15})$/.exec(id)
  return m ? Number(m[1]) : undefined
}

export class LedgerService {
  private batches: BatchSource = NO_BATCHES
  private readonly now: () => number

  constructor (private readonly store: LedgerStore, private readonly dispensing: DispensingService, now?: () => number) {
    this.now = now ?? Date.now
  }

  /** Where a dispensed line's batches come from (src/batches plugs in here); none until one is set. */
  useBatches (source: BatchSource): void {
    this.batches = source
  }

  /** Appends entries built on the current head; when another append won the head, builds again on the new one. */
  private async append (tenantId: string, build: () => EntryContent[], guard: AppendGuard): Promise<LedgerEntry[]> {
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const head = await this.store.head(tenantId)
      const entries = chain(head.seq, head.hash, build())
      const outcome = await this.store.append(tenantId, head.seq, entries, guard)
      if (outcome === 'ok') return entries
      if (outcome === 'handed-over') throw conflict('The order is already handed over')
      if (outcome === 'reversed') throw conflict('The entry is already reversed')
    }
    throw new AppError('SERVICE_UNAVAILABLE', 'The dispensing record is busy: try again')
  }

  /**
   * The THC a dispensation of the variant may carry where it is packaged from batches: the highest lab value of
   * the batches offering it (any may be drawn), null when one has no lab result; the variant's own figure when no
   * batch holds it.
   */
  async thcOf (tenant: Tenant, variantId: string, own: number | null): Promise<number | null> {
    const labs = await this.batches.labThc(tenant, variantId)
    if (labs.length === 0) return own
    return labs.some((thc) => thc === null) ? null : Math.max(...labs as number[])
  }

  /** Has the order a handover in the record? */
  async handedOver (tenant: Tenant, orderId: string): Promise<boolean> {
    return (await this.store.orderEntries(tenant.id, orderId)) !== undefined
  }

  /** One entry per controlled line of the handover (a line without grams leaves none); 409 when the order has one already. */
  async recordHandover (tenant: Tenant, h: HandoverRecord): Promise<LedgerEntry[]> {
    const at = new Date(h.at).toISOString()
    const day = zonedDay(h.at, tenant.timeZone)
    const lines = h.lines.filter((l) => l.grams > 0)
    const batches = await this.batches.batchesOf(tenant, { orderId: h.orderId, memberId: h.memberId, at: h.at, lines })
    return await this.append(tenant.id, () => lines.map((l, i): EntryContent => ({
      kind: 'dispensation',
      at,
      day,
      orderId: h.orderId,
      lineId: l.lineId,
      memberId: h.memberId,
      memberName: h.memberName,
      memberBirthYear: h.memberBirthYear,
      productId: l.productId,
      variantId: l.variantId,
      product: l.product,
      quantity: l.quantity,
      grams: l.grams,
      // the batch's lab values win over the variant's own figures when there are any
      thcPercent: batches[i]?.thcPercent ?? l.thcPercent,
      cbdPercent: batches[i]?.cbdPercent ?? l.cbdPercent,
      batches: batches[i]?.batches ?? [],
      staff: h.staff,
      reverses: null,
      reason: null,
    })), { orderId: h.orderId })
  }

  async entry (actor: Actor, id: string): Promise<LedgerEntry> {
    requireRole(actor, RECORD_KEEPERS)
    const seq = entrySeq(id)
    const found = seq === undefined ? undefined : await this.store.get(actor.tenant.id, seq)
    if (!found) throw notFound(`Dispensing entry ${id}`)
    return found
  }

  /** A reversing entry for `id` (never a reversal itself, never twice); the grams go back to the member's totals. */
  async reverse (actor: Actor, id: string, reason: string): Promise<LedgerEntry> {
    const target = await this.entry(actor, id)
    if (target.kind === 'reversal') throw conflict('A reversing entry cannot be reversed: record the dispensation again instead')
    if (await this.store.reversal(actor.tenant.id, target.id)) throw conflict('The entry is already reversed')
    const ms = this.now()
    const [entry] = await this.append(actor.tenant.id, () => [{
      ...contentOf(target),
      kind: 'reversal',
      at: new Date(ms).toISOString(),
      day: zonedDay(ms, actor.tenant.timeZone),
      grams: -target.grams,
      staff: { id: actor.sub, name: actor.name ?? actor.email ?? actor.sub },
      reverses: target.id,
      reason,
    }], { reverses: target.id })
    await this.dispensing.unuse(actor.tenant, target.memberId, target.day, target.grams)
    if (target.batches.length > 0) await this.batches.undraw(actor.tenant, target.orderId, target.variantId)
    return entry as LedgerEntry
  }

  /** Club days (inclusive) as the times [fromMs, toMs) the store reads. */
  private msBetween (tenant: Tenant, from: string | undefined, to: string | undefined): { fromMs: number, toMs: number } {
    return {
      fromMs: from ? zonedDayStartMs(from, tenant.timeZone) : 0,
      toMs: to ? zonedDayStartMs(nextDay(to), tenant.timeZone) : Number.MAX_SAFE_INTEGER,
    }
  }

  private async entriesBetween (tenant: Tenant, from: string | undefined, to: string | undefined): Promise<LedgerEntry[]> {
    const { fromMs, toMs } = this.msBetween(tenant, from, to)
    return await this.store.range(tenant.id, fromMs, toMs)
  }

  async list (actor: Actor, filter: ListFilter): Promise<{ entries: LedgerEntry[], count: number }> {
    requireRole(actor, RECORD_KEEPERS)
    const { from, to, ...rest } = filter
    return await this.store.page(actor.tenant.id, { ...rest, ...this.msBetween(actor.tenant, from, to) })
  }

  async verify (actor: Actor): Promise<Verification> {
    requireRole(actor, RECORD_KEEPERS)
    const head = await this.store.head(actor.tenant.id)
    const raw: Array<string | null> = []
    for (let s = head.firstSeq; s <= head.seq; s += VERIFY_CHUNK) {
      raw.push(
        ...await this.store.raw(actor.tenant.id, s, Math.min(head.seq, s + VERIFY_CHUNK - 1))
      )
    }
    return verify(head, raw)
  }

  /** The yearly report (KCanG §26): per strain, grams and average THC and CBD weighted by grams, reversals netted. */
  async yearReport (actor: Actor, year: number): Promise<{ year: number, strains: StrainReport[], grams: number }> {
    requireRole(actor, RECORD_KEEPERS)
    const entries = await this.entriesBetween(actor.tenant, `${year}-01-01`, `${year}-12-31`)
    const by = new Map<string, {
      productId: string | null, product: string, grams: number, thc: number, thcGrams: number, cbd: number, cbdGrams: number, n: number
    }>()
    for (const e of entries) {
      const k = e.productId ?? e.product
      const s = by.get(k) ?? { productId: e.productId, product: e.product, grams: 0, thc: 0, thcGrams: 0, cbd: 0, cbdGrams: 0, n: 0 }
      s.grams += e.grams
      s.n += e.kind === 'dispensation' ? 1 : -1
      if (e.thcPercent !== null) { s.thc += e.thcPercent * e.grams; s.thcGrams += e.grams }
      if (e.cbdPercent !== null) { s.cbd += e.cbdPercent * e.grams; s.cbdGrams += e.grams }
      by.set(k, s)
    }
    const strains = [...by.values()].map((s): StrainReport => ({
      productId: s.productId,
      product: s.product,
      grams: round(s.grams),
      thcPercent: s.thcGrams > 0 ? round(s.thc / s.thcGrams, 2) : null,
      cbdPercent: s.cbdGrams > 0 ? round(s.cbd / s.cbdGrams, 2) : null,
      dispensations: s.n,
    })).sort((a, b) => a.product.localeCompare(b.product))
    return { year, strains, grams: round(strains.reduce((sum, s) => sum + s.grams, 0)) }
  }

  /** Each member's total of a month, reversals netted. */
  async monthReport (actor: Actor, month: string): Promise<{ month: string, members: MemberReport[], grams: number }> {
    requireRole(actor, RECORD_KEEPERS)
    const [y, m] = month.split('-').map(Number) as [number, number]
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate()
    const entries = await this.entriesBetween(actor.tenant, `${month}-01`, `${month}-${String(last).padStart(2, '0')}`)
    const by = new Map<string, MemberReport>()
    for (const e of entries) {
      const r = by.get(e.memberId) ?? { memberId: e.memberId, memberName: e.memberName, memberBirthYear: e.memberBirthYear, grams: 0, dispensations: 0 }
      r.grams = round(r.grams + e.grams)
      r.dispensations += e.kind === 'dispensation' ? 1 : -1
      by.set(e.memberId, r)
    }
    const members = [...by.values()].sort((a, b) => a.memberName.localeCompare(b.memberName))
    return { month, members, grams: round(members.reduce((sum, r) => sum + r.grams, 0)) }
  }

  /** The daily job: entries older than the club's retention (years, on its calendar) leave the record, oldest first. */
  async removeExpired (tenant: Tenant): Promise<number> {
    const today = zonedDay(this.now(), tenant.timeZone)
    const back = `${String(Number(today.slice(0, 4)) - rulesOf(tenant).retentionYears).padStart(4, '0')}${today.slice(4)}`
    // 29 February of a year that has none: the retention ends with the 28th
    const cutoff = isCalendarDay(back) ? back : `${back.slice(0, 4)}-03-01`
    const beforeMs = zonedDayStartMs(cutoff, tenant.timeZone)
    let removed = 0
    for (;;) {
      const n = await this.store.removeBefore(tenant.id, beforeMs, RETENTION_BATCH)
      removed += n
      if (n < RETENTION_BATCH) return removed
    }
  }
}

const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)

function contentOf (e: LedgerEntry): EntryContent {
  const { id: _id, seq: _seq, prevHash: _prev, hash: _hash, ...content } = e
  return content
}
