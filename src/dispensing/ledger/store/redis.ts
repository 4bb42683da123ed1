import { keys } from '../../../stores/keys.ts'
import type { RedisClient } from '../../../stores/redis-client.ts'
import { EMPTY_HEAD, ledgerEntrySchema, type ChainHead, type LedgerEntry } from '../chain.ts'
import type { AppendGuard, AppendOutcome, LedgerQuery, LedgerStore } from './port.ts'
import { appendScript, pageScript, removeBeforeScript } from './scripts.ts'

const RANGE_CHUNK = 500
const parse = (text: string): LedgerEntry => ledgerEntrySchema.parse(JSON.parse(text))
const FIXED_KEYS = 5

/** The member and product indexes entries touch, after the fixed keys; each entry's places in KEYS (1-based, 0: none). */
function indexKeys (tenantId: string, entries: ReadonlyArray<LedgerEntry | undefined>): { keys: string[], places: Array<[number, number]> } {
  const extra: string[] = []
  const place = (key: string): number => {
    let i = extra.indexOf(key)
    if (i < 0) i = extra.push(key) - 1
    return FIXED_KEYS + i + 1
  }
  const places = entries.map((e): [number, number] => e
    ? [
        place(keys.dispensing.ledgerIndex(tenantId, 'member', e.memberId)),
        e.productId ? place(keys.dispensing.ledgerIndex(tenantId, 'product', e.productId)) : 0
      ]
    : [0, 0])
  return { keys: extra, places }
}

export class RedisLedgerStore implements LedgerStore {
  constructor (private readonly redis: RedisClient) {}

  private k (tenantId: string) {
    const k = keys.dispensing.ledger(tenantId)
    return { k, all: [k.entries, k.head, k.byTime, k.orders, k.reversed] }
  }

  async head (tenantId: string): Promise<ChainHead> {
    const [seq, hash, firstSeq, anchor] = await this.redis.hmget(this.k(tenantId).k.head, 'seq', 'hash', 'firstSeq', 'anchor')
    return {
      seq: seq ? Number(seq) : EMPTY_HEAD.seq,
      hash: hash ?? EMPTY_HEAD.hash,
      firstSeq: firstSeq ? Number(firstSeq) : EMPTY_HEAD.firstSeq,
      anchor: anchor ?? EMPTY_HEAD.anchor,
    }
  }

  async append (tenantId: string, expectedSeq: number, entries: readonly LedgerEntry[], guard: AppendGuard): Promise<AppendOutcome> {
    const last = entries.at(-1)
    if (!last) return 'ok'
    const ids = guard.reverses ? last.id : JSON.stringify(entries.map((e) => e.id))
    const index = indexKeys(tenantId, entries)
    const flat = entries.flatMap((e, i) => [String(e.seq), Date.parse(e.at), JSON.stringify(e), ...index.places[i] as [number, number]])
    return await appendScript(
      this.redis, [...this.k(tenantId).all, ...index.keys], expectedSeq, last.seq, last.hash, guard.orderId ?? '', guard.reverses ?? '', ids, ...flat
    )
  }

  async get (tenantId: string, seq: number) {
    const text = await this.redis.hget(this.k(tenantId).k.entries, String(seq))
    return text ? parse(text) : undefined
  }

  async orderEntries (tenantId: string, orderId: string) {
    const ids = await this.redis.hget(this.k(tenantId).k.orders, orderId)
    return ids ? JSON.parse(ids) as string[] : undefined
  }

  async reversal (tenantId: string, id: string) {
    return await this.redis.hget(this.k(tenantId).k.reversed, id) ?? undefined
  }

  async range (tenantId: string, fromMs: number, toMs: number) {
    const { k } = this.k(tenantId)
    const seqs = await this.redis.zrangebyscore(k.byTime, fromMs, `(${toMs}`)
    const out: LedgerEntry[] = []
    for (let i = 0; i < seqs.length; i += RANGE_CHUNK) {
      const texts = await this.redis.hmget(k.entries, ...seqs.slice(i, i + RANGE_CHUNK))
      for (const t of texts) if (t) out.push(parse(t))
    }
    return out.sort((a, b) => a.seq - b.seq)
  }

  async page (tenantId: string, q: LedgerQuery) {
    const { k } = this.k(tenantId)
    if (!q.memberId && !q.productId && q.fromMs <= 0 && q.toMs >= Number.MAX_SAFE_INTEGER) {
      // the whole record: its entries are the seqs from the front, no index needed
      const head = await this.head(tenantId)
      const from = head.firstSeq + q.offset
      const to = Math.min(head.seq, from + q.limit - 1)
      const texts = to >= from ? await this.raw(tenantId, from, to) : []
      return { entries: texts.flatMap((t) => t ? [parse(t)] : []), count: Math.max(0, head.seq - head.firstSeq + 1) }
    }
    if (q.memberId || q.productId) await this.indexOlder(tenantId)
    const index = q.memberId
      ? keys.dispensing.ledgerIndex(tenantId, 'member', q.memberId)
      : q.productId ? keys.dispensing.ledgerIndex(tenantId, 'product', q.productId) : k.byTime
    const { count, texts } = await pageScript(this.redis, [index, k.entries], q.fromMs, q.toMs, q.offset, q.limit, q.memberId ? q.productId ?? '' : '')
    return { entries: texts.flatMap((t) => t ? [parse(t)] : []), count }
  }

  /** Entries written before the member and product indexes existed join them once (the head's `indexed` says done). */
  private async indexOlder (tenantId: string): Promise<void> {
    const { k } = this.k(tenantId)
    if (await this.redis.hget(k.head, 'indexed')) return
    const head = await this.head(tenantId)
    for (let s = head.firstSeq; s <= head.seq; s += RANGE_CHUNK) {
      const found = (await this.raw(tenantId, s, Math.min(head.seq, s + RANGE_CHUNK - 1))).flatMap((t) => t ? [parse(t)] : [])
      if (found.length === 0) continue
      // every index is on the record's tag: one MULTI per chunk
      const multi = this.redis.multi()
      for (const e of found) {
        multi.zadd(keys.dispensing.ledgerIndex(tenantId, 'member', e.memberId), Date.parse(e.at), String(e.seq))
        if (e.productId) multi.zadd(keys.dispensing.ledgerIndex(tenantId, 'product', e.productId), Date.parse(e.at), String(e.seq))
      }
      await multi.exec()
    }
    await this.redis.hset(k.head, 'indexed', '1')
  }

  async raw (tenantId: string, fromSeq: number, toSeq: number) {
    const out: Array<string | null> = []
    for (let s = fromSeq; s <= toSeq; s += RANGE_CHUNK) {
      const fields = Array.from({ length: Math.min(RANGE_CHUNK, toSeq - s + 1) }, (_, i) => String(s + i))
      out.push(...await this.redis.hmget(this.k(tenantId).k.entries, ...fields))
    }
    return out
  }

  async removeBefore (tenantId: string, beforeMs: number, max: number) {
    // the entries at the front are read first: the script must be given the indexes they leave
    const head = await this.head(tenantId)
    const last = Math.min(head.seq, head.firstSeq + max - 1)
    if (last < head.firstSeq) return 0
    const front = (await this.raw(tenantId, head.firstSeq, last)).map((t) => t ? parse(t) : undefined)
    const index = indexKeys(tenantId, front)
    const removed = await removeBeforeScript(this.redis, [...this.k(tenantId).all, ...index.keys], beforeMs, max, head.firstSeq, ...index.places.flat())
    // -1: another pass moved the front meanwhile (the daily job's lock makes that rare); the next run goes on
    return Math.max(0, removed)
  }
}
