import { keys } from '../../stores/keys.ts'
import type { RedisClient } from '../../stores/redis-client.ts'
import { PERIODS, ZERO_TOTALS, type Load, type PeriodIds, type RuleArgs, type Totals } from '../decide.ts'
import { toMg } from '../dosage.ts'
import { DEFAULT_STANDING, standingSchema, type Standing } from '../standing.ts'
import { awaitsExpiry, dayNumber, dayOfNumber, type MemberQuota, type MemberStore, type Verdict } from './port.ts'
import { checkArgs, finalizeScript, putStandingScript, readScript, releaseScript, reserveScript, unuseScript } from './scripts.ts'

const parseStanding = (doc: string | null): Standing => doc ? standingSchema.parse(JSON.parse(doc)) : structuredClone(DEFAULT_STANDING)

function totalsOf (raw: Array<string | null>, ids: PeriodIds): Totals {
  const t = structuredClone(ZERO_TOTALS)
  PERIODS.forEach((p, i) => {
    if (raw[i * 3] === ids[p]) t[p] = { used: Number(raw[i * 3 + 1] ?? 0), reserved: Number(raw[i * 3 + 2] ?? 0) }
  })
  return t
}

export class RedisMemberStore implements MemberStore {
  constructor (private readonly redis: RedisClient) {}

  async getStanding (tenantId: string, memberId: string) {
    return parseStanding(await this.redis.hget(keys.dispensing.member(tenantId, memberId).standing, 'doc'))
  }

  async putStanding (tenantId: string, memberId: string, s: Standing, expected: string | null) {
    const allowance = s.monthlyAllowanceGrams === null ? '' : String(toMg(s.monthlyAllowanceGrams))
    const written = await putStandingScript(this.redis, [keys.dispensing.member(tenantId, memberId).standing], expected ?? '', JSON.stringify(s), s.status,
      s.birthDate ?? '', s.memberSince ?? '', s.validUntil ?? '', allowance, s.updatedAt ?? '')
    if (!written) return false
    // Right after, not in the script: the index is the club's (its own slot), the standing the member's. A crash
    // in between leaves the index behind until the standing's next write; the daily pass re-reads each standing
    // it finds, so a stale entry only costs it a read.
    const index = keys.dispensing.byValidUntil(tenantId)
    if (s.validUntil && awaitsExpiry(s)) await this.redis.zadd(index, dayNumber(s.validUntil), memberId)
    else await this.redis.zrem(index, memberId)
    return true
  }

  async validUntilBetween (tenantId: string, from: string, to: string) {
    const raw = await this.redis.zrangebyscore(keys.dispensing.byValidUntil(tenantId), dayNumber(from), dayNumber(to), 'WITHSCORES')
    const found: Array<{ memberId: string, validUntil: string }> = []
    for (let i = 0; i + 1 < raw.length; i += 2) found.push({ memberId: raw[i] as string, validUntil: dayOfNumber(Number(raw[i + 1])) })
    return found
  }

  async read (tenantId: string, memberId: string, ids: PeriodIds): Promise<MemberQuota> {
    const k = keys.dispensing.member(tenantId, memberId)
    const [doc, quota] = await readScript(this.redis, [k.standing, k.quota])
    return { standing: parseStanding(doc), totals: totalsOf(quota, ids) }
  }

  async reserve (tenantId: string, memberId: string, holdId: string, args: RuleArgs, load: Load): Promise<Verdict> {
    const k = keys.dispensing.member(tenantId, memberId)
    return await reserveScript(this.redis, [k.standing, k.quota, k.holds], holdId, ...checkArgs(args, load))
  }

  async release (tenantId: string, memberId: string, holdId: string) {
    const k = keys.dispensing.member(tenantId, memberId)
    return await releaseScript(this.redis, [k.quota, k.holds], holdId)
  }

  async finalize (tenantId: string, memberId: string, holdId: string | null, args: RuleArgs, load: Load): Promise<Verdict> {
    const k = keys.dispensing.member(tenantId, memberId)
    return await finalizeScript(this.redis, [k.standing, k.quota, k.holds], holdId ?? '', ...checkArgs(args, load))
  }

  async unuse (tenantId: string, memberId: string, ids: PeriodIds, mg: number) {
    await unuseScript(this.redis, [keys.dispensing.member(tenantId, memberId).quota], ids.day, ids.month, ids.year, mg)
  }
}
