import type { Redis } from 'ioredis'

// Redis bytes an idle phone keeps, found from outside on a Redis only the bench uses (so SCAN is fine here):
// every key whose name holds the phone or one of the ids its messages came with (de-dup markers), plus, for
// every set, sorted set or hash that holds the phone as a member or field (a club's conversation index, a
// member's phones), that collection's MEMORY USAGE divided by its size.

export interface PhoneBytes { total: number, parts: Array<{ what: string, bytes: number }> }

export async function idlePhoneBytes (redis: Redis, prefix: string, phone: string, markers: readonly string[]): Promise<PhoneBytes> {
  const names: string[] = []
  let cursor = '0'
  do {
    const [next, found] = await redis.scan(cursor, 'COUNT', 1000)
    cursor = next
    names.push(...found)
  } while (cursor !== '0')
  const ids = markers.filter(Boolean)
  const parts: PhoneBytes['parts'] = []
  for (const name of names) {
    const usage = Number(await redis.call('MEMORY', 'USAGE', name, 'SAMPLES', '0'))
    const what = name.slice(prefix.length).replace(phone, '<phone>').replace(/\{chat:\d+\}/, '{chat:n}')
    if (name.includes(phone)) {
      parts.push({ what, bytes: usage })
      continue
    }
    const marker = ids.find((id) => name.includes(id))
    if (marker) {
      parts.push({ what: what.replace(marker, '<id>'), bytes: usage })
      continue
    }
    const share = await memberShare(redis, name, phone)
    if (share) parts.push({ what: `1/${share} of ${what}`, bytes: Math.round(usage / share) })
  }
  // markers of many messages: one line per kind of key, summed
  const merged = new Map<string, number>()
  for (const p of parts) merged.set(p.what, (merged.get(p.what) ?? 0) + p.bytes)
  return { total: parts.reduce((s, p) => s + p.bytes, 0), parts: [...merged].map(([what, bytes]) => ({ what, bytes })) }
}

/** The collection's size when it holds `phone`; 0 otherwise. */
async function memberShare (redis: Redis, name: string, phone: string): Promise<number> {
  const type = await redis.type(name)
  if (type === 'zset') return await redis.zscore(name, phone) === null ? 0 : await redis.zcard(name)
  if (type === 'set') return await redis.sismember(name, phone) ? await redis.scard(name) : 0
  if (type === 'hash') return await redis.hexists(name, phone) ? await redis.hlen(name) : 0
  return 0
}
