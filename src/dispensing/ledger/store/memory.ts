import { EMPTY_HEAD, entryId, ledgerEntrySchema, type ChainHead, type LedgerEntry } from '../chain.ts'
import type { AppendGuard, AppendOutcome, LedgerQuery, LedgerStore } from './port.ts'

interface Club { head: ChainHead, entries: Map<number, { text: string, ms: number }>, orders: Map<string, string[]>, reversed: Map<string, string> }

export class MemoryLedgerStore implements LedgerStore {
  private readonly clubs = new Map<string, Club>()

  private club (tenantId: string): Club {
    let c = this.clubs.get(tenantId)
    if (!c) {
      c = { head: { ...EMPTY_HEAD }, entries: new Map(), orders: new Map(), reversed: new Map() }
      this.clubs.set(tenantId, c)
    }
    return c
  }

  /** Tests reach the stored text to show that an edit or a removal is found. */
  tamper (tenantId: string, seq: number, text: string | null): void {
    const c = this.club(tenantId)
    const found = c.entries.get(seq)
    if (text === null) c.entries.delete(seq)
    else c.entries.set(seq, { text, ms: found?.ms ?? 0 })
  }

  async head (tenantId: string) { return { ...this.club(tenantId).head } }

  async append (tenantId: string, expectedSeq: number, entries: readonly LedgerEntry[], guard: AppendGuard): Promise<AppendOutcome> {
    const c = this.club(tenantId)
    if (c.head.seq !== expectedSeq) return 'moved'
    if (guard.orderId && c.orders.has(guard.orderId)) return 'handed-over'
    if (guard.reverses && c.reversed.has(guard.reverses)) return 'reversed'
    const last = entries.at(-1)
    if (!last) return 'ok'
    for (const e of entries) c.entries.set(e.seq, { text: JSON.stringify(e), ms: Date.parse(e.at) })
    c.head = { ...c.head, seq: last.seq, hash: last.hash }
    if (guard.orderId) c.orders.set(guard.orderId, entries.map((e) => e.id))
    if (guard.reverses) c.reversed.set(guard.reverses, last.id)
    return 'ok'
  }

  async get (tenantId: string, seq: number) {
    const found = this.club(tenantId).entries.get(seq)
    return found ? ledgerEntrySchema.parse(JSON.parse(found.text)) : undefined
  }

  async orderEntries (tenantId: string, orderId: string) { return this.club(tenantId).orders.get(orderId) }
  async reversal (tenantId: string, id: string) { return this.club(tenantId).reversed.get(id) }

  async range (tenantId: string, fromMs: number, toMs: number) {
    return [...this.club(tenantId).entries.entries()]
      .filter(([, e]) => e.ms >= fromMs && e.ms < toMs)
      .sort(([a], [b]) => a - b)
      .map(([, e]) => ledgerEntrySchema.parse(JSON.parse(e.text)))
  }

  async page (tenantId: string, q: LedgerQuery) {
    const all = (await this.range(tenantId, q.fromMs, q.toMs))
      .filter((e) => (!q.memberId || e.memberId === q.memberId) && (!q.productId || e.productId === q.productId))
    return { entries: all.slice(q.offset, q.offset + q.limit), count: all.length }
  }

  async raw (tenantId: string, fromSeq: number, toSeq: number) {
    const c = this.club(tenantId)
    const out: Array<string | null> = []
    for (let s = fromSeq; s <= toSeq; s++) out.push(c.entries.get(s)?.text ?? null)
    return out
  }

  async removeBefore (tenantId: string, beforeMs: number, max: number) {
    const c = this.club(tenantId)
    let removed = 0
    while (removed < max && c.head.firstSeq <= c.head.seq) {
      const e = c.entries.get(c.head.firstSeq)
      if (!e || e.ms >= beforeMs) break
      const entry = ledgerEntrySchema.parse(JSON.parse(e.text))
      c.entries.delete(entry.seq)
      c.orders.delete(entry.orderId)
      c.reversed.delete(entryId(entry.seq))
      c.head = { ...c.head, firstSeq: entry.seq + 1, anchor: entry.hash }
      removed++
    }
    return removed
  }
}
