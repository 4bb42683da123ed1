import type { RedisClient } from '../../stores/redis-client.ts'
import { keys } from '../../stores/keys.ts'
import type { Clock } from '../../stores/expiring-map.ts'
import { shardOf } from '../../stores/shards.ts'
import type { Failure, StatusUpdate } from '../provider/receipts.ts'
import { byMessage, foldReceipt, livePeriods, receiptOfFields, sentPeriod, type Applied, type ReceiptStore, type SentReply } from './port.ts'
import * as script from './scripts.ts'
import type { RawReceipt } from './scripts.ts'

const time = (raw: string | null): number | undefined => raw === null ? undefined : Number(raw)

function failureOf (raw: string): Failure {
  const { at, code, title } = JSON.parse(raw) as Failure
  return { at, code, title }
}

function receiptOf (raw: RawReceipt) {
  const [, sent, delivered, read, failed] = raw
  return receiptOfFields({ sent: time(sent), delivered: time(delivered), read: time(read), failed: failed === null ? undefined : failureOf(failed) })
}

export class RedisReceiptStore implements ReceiptStore {
  constructor (private readonly redis: RedisClient, private readonly shards: number, private readonly ttlMs: number, private readonly now: Clock) {}

  private key = (address: string, messageId: string) => keys.chat.bot.receipt(shardOf(address, this.shards), address, messageId)
  private sentIds = (address: string, at: number) => keys.chat.bot.sentIds(shardOf(address, this.shards), address, sentPeriod(at))

  async recordSent (reply: SentReply) {
    const key = this.key(reply.address, reply.messageId)
    const ids = this.sentIds(reply.address, this.now())
    // HSETNX: a second record of the same message (a re-sent reply the provider answered with its first id) keeps the first
    await this.redis.multi().hsetnx(key, 'meta', JSON.stringify(reply)).pexpire(key, this.ttlMs)
      .hset(ids, reply.replyId, reply.messageId).pexpire(ids, this.ttlMs).exec()
  }

  async apply (address: string, updates: readonly StatusUpdate[]) {
    const grouped = [...byMessage(updates)]
    if (grouped.length === 0) return []
    const args = grouped.flatMap(([, list]) => [String(list.length), ...list.flatMap((u) => [
      u.status,
      String(u.at),
      u.status === 'failed' ? JSON.stringify({ at: u.at, code: u.errors[0]?.code, title: u.errors[0]?.title ?? 'failed without a reason' }) : '',
    ])])
    const before = await script.apply(this.redis, grouped.map(([id]) => this.key(address, id)), ...args)
    return grouped.map(([messageId, list], i): Applied => {
      const raw = before[i]
      if (!raw) return { messageId, known: false }
      const receipt = receiptOf(raw)
      return { messageId, known: true, sent: JSON.parse(raw[0] ?? '{}') as SentReply, before: receipt, after: foldReceipt(receipt, list) }
    })
  }

  async receiptsOfReplies (address: string, replyIds: readonly string[]) {
    const found = new Map<string, ReturnType<typeof receiptOf>>()
    const unique = [...new Set(replyIds)]
    if (unique.length === 0) return found
    // each live period's ids and those of before the periods, side by side (one batch): a reply id is in one of them
    const shard = shardOf(address, this.shards)
    const idKeys = [...livePeriods(this.now(), this.ttlMs).map((p) => keys.chat.bot.sentIds(shard, address, p)), keys.chat.bot.legacySentIds(shard, address)]
    const answers = await Promise.all(idKeys.map(async (k) => await this.redis.hmget(k, ...unique)))
    const sent = unique.flatMap((replyId, i) => {
      const id = answers.map((a) => a[i]).find((m) => m !== null && m !== undefined)
      return id ? [{ replyId, messageId: id }] : []
    })
    if (sent.length === 0) return found
    const raw = await script.read(this.redis, sent.map((s) => this.key(address, s.messageId)))
    sent.forEach((s, i) => {
      const r = raw[i]
      if (r) found.set(s.replyId, receiptOf(r))
    })
    return found
  }
}
