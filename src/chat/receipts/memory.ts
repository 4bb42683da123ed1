import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'
import type { Receipt, StatusUpdate } from '../provider/receipts.ts'
import { byMessage, foldReceipt, type Applied, type ReceiptStore, type SentReply } from './port.ts'

export class MemoryReceiptStore implements ReceiptStore {
  private readonly kept: ExpiringMap<{ sent: SentReply, receipt: Receipt }>

  constructor (private readonly ttlMs: number, now: Clock = Date.now) {
    this.kept = new ExpiringMap(now)
  }

  private key = (address: string, messageId: string) => `${address}\n${messageId}`

  async recordSent (reply: SentReply) {
    const key = this.key(reply.address, reply.messageId)
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

  async receipts (address: string, messageIds: readonly string[]) {
    const found = new Map<string, Receipt>()
    for (const id of messageIds) {
      const kept = this.kept.get(this.key(address, id))
      if (kept) found.set(id, structuredClone(kept.receipt))
    }
    return found
  }
}
