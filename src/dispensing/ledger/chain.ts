import { createHash } from 'node:crypto'
import { z } from 'zod'

// The dispensing record as a hash chain: each entry's hash covers its content and the previous entry's hash, so
// an entry edited or removed afterwards breaks the chain at that entry. Pure (node:crypto only).

const GENESIS = '0'.repeat(64)

const batchShareSchema = z.object({ batchNumber: z.string(), grams: z.number() })
export type BatchShare = z.infer<typeof batchShareSchema>

export const ledgerEntrySchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  kind: z.enum(['dispensation', 'reversal']),
  at: z.string(),
  /** The club day (its time zone) the entry counts on. */
  day: z.string(),
  orderId: z.string(),
  lineId: z.string(),
  memberId: z.string(),
  /** Name and birth year only: what the record must keep (KCanG §26), nothing more of the member. */
  memberName: z.string(),
  memberBirthYear: z.number().int().nullable(),
  productId: z.string().nullable(),
  variantId: z.string().nullable(),
  product: z.string(),
  quantity: z.number(),
  /** Negative on a reversal: the record's totals are its sums. */
  grams: z.number(),
  thcPercent: z.number().nullable(),
  cbdPercent: z.number().nullable(),
  batches: z.array(batchShareSchema),
  staff: z.object({ id: z.string(), name: z.string() }),
  reverses: z.string().nullable(),
  reason: z.string().nullable(),
  prevHash: z.string(),
  hash: z.string(),
}).meta({ id: 'DispensingEntry' })
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>
export type EntryContent = Omit<LedgerEntry, 'id' | 'seq' | 'prevHash' | 'hash'>

export const entryId = (seq: number): string => `dsp_${seq}`

/** The fields hashed, in a fixed order: a JSON array, so key order or a field added later cannot change old hashes. */
function hashed (e: Omit<LedgerEntry, 'hash'>): string {
  return JSON.stringify([
    e.seq, e.kind, e.at, e.day, e.orderId, e.lineId, e.memberId, e.memberName, e.memberBirthYear, e.productId, e.variantId, e.product,
    e.quantity, e.grams, e.thcPercent, e.cbdPercent, e.batches.map((b) => [b.batchNumber, b.grams]), e.staff.id, e.staff.name, e.reverses, e.reason,
  ])
}

const hashOf = (e: Omit<LedgerEntry, 'hash'>): string =>
  createHash('sha256').update(e.prevHash).update('\n').update(hashed(e)).digest('hex')

/** Entries for `contents`, chained after the entry `seq` whose hash is `prevHash`. */
export function chain (seq: number, prevHash: string, contents: readonly EntryContent[]): LedgerEntry[] {
  const out: LedgerEntry[] = []
  let prev = prevHash
  let n = seq
  for (const c of contents) {
    n++
    const unhashed = { ...c, id: entryId(n), seq: n, prevHash: prev }
    const entry = { ...unhashed, hash: hashOf(unhashed) }
    out.push(entry)
    prev = entry.hash
  }
  return out
}

export interface ChainHead { seq: number, hash: string, firstSeq: number, anchor: string }
export const EMPTY_HEAD: ChainHead = { seq: 0, hash: GENESIS, firstSeq: 1, anchor: GENESIS }

export type Verification =
  | { ok: true, entries: number, head: string }
  | { ok: false, entries: number, broken: { id: string, seq: number, problem: 'missing' | 'content' | 'link' } }

/**
 * Walks `raw` (the stored text of entries firstSeq..head.seq in order, null where none is stored) and names the
 * first entry that is missing, does not parse, does not hash to its hash, or does not follow the one before.
 */
export function verify (head: ChainHead, raw: ReadonlyArray<string | null>): Verification {
  let prev = head.anchor
  for (let i = 0; i < raw.length; i++) {
    const seq = head.firstSeq + i
    const text = raw[i]
    const broken = (problem: 'missing' | 'content' | 'link'): Verification => ({ ok: false, entries: i, broken: { id: entryId(seq), seq, problem } })
    if (text === null || text === undefined) return broken('missing')
    let parsed: LedgerEntry
    try {
      parsed = ledgerEntrySchema.parse(JSON.parse(text))
    } catch {
      return broken('content')
    }
    if (parsed.seq !== seq || parsed.id !== entryId(seq)) return broken('content')
    const { hash, ...rest } = parsed
    if (hashOf(rest) !== hash) return broken('content')
    if (parsed.prevHash !== prev) return broken('link')
    prev = hash
  }
  if (prev !== head.hash) return { ok: false, entries: raw.length, broken: { id: entryId(head.seq), seq: head.seq, problem: 'link' } }
  return { ok: true, entries: raw.length, head: head.hash }
}
