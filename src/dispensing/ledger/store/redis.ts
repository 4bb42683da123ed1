import { keys } from '../../../stores/keys.ts'
import type { RedisClient } from '../../../stores/redis-client.ts'
import { EMPTY_HEAD, ledgerEntrySchema, type ChainHead, type LedgerEntry } from '../chain.ts'
import type { AppendGuard, AppendOutcome, LedgerStore } from './port.ts'
import { appendScript, removeBeforeScript } from './scripts.ts'

const RANGE_CHUNK = 500
const parse = (text: string): LedgerEntry => ledgerEntrySchema.parse(JSON.parse(text))

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
    const flat = entries.flatMap((e) => [String(e.seq), Date.parse(e.at), JSON.stringify(e)])
    return await appendScript(this.redis, this.k(tenantId).all, expectedSeq, last.seq, last.hash, guard.orderId ?? '', guard.reverses ?? '', ids, ...flat)
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

  async raw (tenantId: string, fromSeq: number, toSeq: number) {
    const out: Array<string | null> = []
    for (let s = fromSeq; s <= toSeq; s += RANGE_CHUNK) {
      const fields = Array.from({ length: Math.min(RANGE_CHUNK, toSeq - s + 1) }, (_, i) => String(s + i))
      out.push(...await this.redis.hmget(this.k(tenantId).k.entries, ...fields))
    }
    return out
  }

  async removeBefore (tenantId: string, beforeMs: number, max: number) {
    return await removeBeforeScript(this.redis, this.k(tenantId).all, beforeMs, max)
  }
}
