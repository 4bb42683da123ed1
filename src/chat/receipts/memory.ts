import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'
import type { Receipt, StatusUpdate } from '../provider/receipts.ts'
import { byMessage, foldReceipt, type Applied, type ReceiptStore, type SentReply } from './port.ts'

export class MemoryReceiptStore implements ReceiptStore {
  private readonly kept: ExpiringMap<{ sent: SentReply, receipt: Receipt }>
  private readonly sentIds: ExpiringMap<string>

  constructor (private readonly ttlMs: number, now: Clock = Date.now) {
    this.kept = new ExpiringMap(now)
    this.sentIds = new ExpiringMap(now)
  }

  private key = (address: string, messageId: string) => `${address}\n${messageId}`

  async recordSent (reply: SentReply) {
    const key = this.key(reply.address, reply.messageId)
    this.sentIds.set(this.key(reply.address, reply.replyId), reply.messageId, this.ttlMs)
    if (this.kept.get(key)) return
    this.kept.set(key, { sent: structuredClone(reply), receipt: {} }, this.ttlMs)
  }

  async apply (address: string, updates: readonly StatusUpdate[]) {
    const applied: Applied[] = []
    for (const [messageId, list] of byMessage(updates)) {
      const key = this.key(address, messageId)
      const found = this.kept.entry(key)
      if (!found) {
        applied.push({ messageId, known: false })
        continue
      }
      const after = foldReceipt(found.value.receipt, list)
      applied.push({ messageId, known: true, sent: structuredClone(found.value.sent), before: found.value.receipt, after })
      this.kept.setUntil(key, { sent: found.value.sent, receipt: after }, found.expiresAt)
    }
    return applied
  }

  async receiptsOfReplies (address: string, replyIds: readonly string[]) {
    const found = new Map<string, Receipt>()
    for (const replyId of replyIds) {
      const messageId = this.sentIds.get(this.key(address, replyId))
      const kept = messageId === undefined ? undefined : this.kept.get(this.key(address, messageId))
      if (kept) found.set(replyId, structuredClone(kept.receipt))
    }
    return found
  }
}
