// A stable shard of an id (a phone, a notification recipient): FNV-1a, 32 bits, modulo the shard count. The
// shard is part of key names (their hash tag), so the count must stay the same for the life of the data.

export function shardOf (id: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h % shards
}
