// A phone's shard: a stable hash (FNV-1a, 32 bits) of its digits modulo the shard count. Every key of the phone
// carries the shard's hash tag, so the count must stay the same for the life of the data (CHAT_SHARDS).

export function shardOf (phone: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < phone.length; i++) {
    h ^= phone.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h % shards
}

/** The phone's last four digits: enough to follow it in the log, not enough to reveal it. */
export const maskPhone = (phone: string): string => `…${phone.slice(-4)}`
