import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { recipientScriptKeys } from '../../src/notifications/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'

// Redis Cluster runs a script, MULTI or pipeline only when all its keys sit in one slot. Each group below is
// what one of them touches (with two different records, phones or recipients where a script takes several);
// CLUSTER KEYSLOT of the test cluster says which slot each key lands on. Every key builder of keys.ts is
// either in a group or listed as used alone, so a new builder fails here until it is placed.

const PREFIX = 'club:'
const c = keys.crops
const n = keys.notifications
const b = keys.chat.bot
const recipient = n.recipient('club-norte', 'cus_ana')

const groups: Record<string, string[]> = {
  'crops: create, remove, update, add plants, summaries pipeline': [
    c.one('club-norte', 'crop_1'), c.one('club-norte', 'crop_2'), c.index('club-norte'), c.active('club-norte'),
    c.plants('club-norte', 'crop_1'), c.plantCodes('club-norte', 'crop_1'),
  ],
  'batches: every write, summaries and records pipelines': [
    keys.batches.one('club-norte', 'B-1'), keys.batches.one('club-norte', 'B-2'), keys.batches.index('club-norte'), keys.batches.draws('club-norte'),
    keys.batches.offers('club-norte', 'variant_1'), keys.batches.offers('club-norte', 'variant_2'),
  ],
  'content: appointment MULTI, task MULTI': [
    keys.content.appointments('club-norte'), keys.content.appointmentsByStart('club-norte'),
    keys.content.tasks('club-norte'), keys.content.tasksByDue('club-norte'), keys.content.tasksOpen('club-norte'),
  ],
  'club list: put MULTI, list MGET, rename': [keys.tenants.all(), keys.tenants.one('club-norte'), keys.tenants.one('club-sur'), keys.tenants.names()],
  'notifications: every recipient script': recipientScriptKeys({ tenantId: 'club-norte', recipientId: 'cus_ana' }),
  'notifications: broadcast add and prune, records MGET': [
    n.broadcastFeed('club-norte', 'member'), n.broadcastFeedExpiry('club-norte', 'member'), n.broadcastSeq('club-norte'),
    n.broadcast('club-norte', 'bc_1'), n.broadcast('club-norte', 'bc_2'),
  ],
  'orders: a completion\'s lock taken and given back with its note': [
    keys.orders.completionLock('club-norte', 'cart_1'), keys.orders.completionLock('club-norte', 'cart_2'), keys.orders.unsettled('club-norte'),
  ],
  'dispensing: a member\'s reserve, release, finalize, read, standing': Object.values(keys.dispensing.member('club-norte', 'cus_ana')),
  'dispensing: the club\'s ledger append, reverse, list, retention': [
    ...Object.values(keys.dispensing.ledger('club-norte')),
    keys.dispensing.ledgerIndex('club-norte', 'member', 'cus_ana'), keys.dispensing.ledgerIndex('club-norte', 'product', 'prod_1'),
  ],
  'chat: every script of a shard': [
    b.session(7, '5491100000001'), b.session(7, '5491100000002'),
    b.mailbox(7, '5491100000001'), b.outbox(7, '5491100000001'), b.ready(7), b.owners(7), b.sendable(7), b.senders(7),
    b.sendTries(7), b.dead(7), b.deadIndex(7), b.deadOfClub(7, 'club-norte'), b.deadOfClub(7, 'club-sur'), b.linkResult(7, '5491100000001', 'ABC123'),
    b.history(7, 'club-norte', '5491100000001'), b.conversation(7, 'club-norte', '5491100000001'), b.handoffDue(7),
    b.legacyHistory(7, '5491100000001'), b.legacyConversation(7, '5491100000001'),
    // a delivered reply's record (delivered-6.lua): the outbox and the reply's receipt
    b.receipt(7, '5491100000001', 'wamid.1'), b.sentIds(7, '5491100000001', 681), b.legacySentIds(7, '5491100000001'),
  ],
}

// Builders whose keys no script, MULTI or pipeline combines with another key: they need no shared tag.
const alone = new Set([
  'staff.roster', 'staff.byEmail', 'staff.revokedBefore', 'staff.accessChanged', 'oneUseToken', 'orders.idempotency', 'orders.upstreamToken',
  'orders.metadataLock', 'orders.legacyUnsettled', 'accounts.loginAttempts',
  'notifications.remindersLock', 'notifications.recipient.broadcastCursor', 'crops.batchSeq', 'crops.catalog', 'batches.stockLock',
  'chat.instances', 'chat.conversationsMoved', 'chat.linking.code', 'chat.linking.accounts', 'chat.linking.invite', 'chat.linking.attempts',
  'chat.linking.members',
  // roots of a domain (for tools), pub/sub channels (no slot: live hub, chat wake-up by SPUBLISH to its shard)
  'notifications.root', 'chat.root', 'rateLimit', 'notifications.liveRecipient', 'notifications.liveRole', 'chat.bot.wake',
  // a club's conversation index (a MULTI on that key alone) and its activity channel
  'chat.clubConversations', 'chat.clubActivity',
  // the provider's pace of a business number: one key per script call
  'chat.pace',
  // a handover's lock: one key per call
  'dispensing.handoverLock', 'dispensing.dailyLock',
  // a club's members by validUntil: one ZADD or ZREM after the standing's own script (another slot)
  'dispensing.byValidUntil',
])
// The embedded commerce backend keeps its keys untagged: start-up refuses it on a cluster.
const refused = 'commerce.'

/** Every builder path of keys.ts (the recipient builder answers an object of keys: its members count too). */
function builderPaths (node: object, path: string[] = []): string[] {
  return Object.entries(node).flatMap(([name, value]) => {
    const here = [...path, name]
    if (typeof value !== 'function') return builderPaths(value as object, here)
    const sample = (value as (...args: string[]) => unknown)('club-norte', 'cus_ana', 'x')
    return typeof sample === 'object' && sample !== null
      ? Object.keys(sample).map((member) => [...here, member].join('.'))
      : [here.join('.')]
  })
}

// The builders whose keys `groups` checks.
const grouped = new Set([
  ...['one', 'index', 'active', 'plants', 'plantCodes'].map((k) => `crops.${k}`),
  ...Object.keys(keys.content).map((k) => `content.${k}`),
  ...Object.keys(keys.batches).filter((k) => k !== 'stockLock').map((k) => `batches.${k}`),
  'tenants.all', 'tenants.one', 'tenants.names', 'orders.unsettled', 'orders.completionLock',
  ...Object.keys(recipient).filter((k) => k !== 'broadcastCursor').map((k) => `notifications.recipient.${k}`), 'notifications.expiring',
  'notifications.broadcastFeed', 'notifications.broadcastFeedExpiry', 'notifications.broadcastSeq', 'notifications.broadcast',
  ...Object.keys(b).filter((k) => k !== 'wake').map((k) => `chat.bot.${k}`),
  ...Object.keys(keys.dispensing.member('t', 'm')).map((k) => `dispensing.member.${k}`),
  ...Object.keys(keys.dispensing.ledger('t')).map((k) => `dispensing.ledger.${k}`), 'dispensing.ledgerIndex',
])

describe('key slots of every script on a Redis Cluster', () => {
  let node: Redis
  beforeAll(() => { node = new Redis(`redis://${inject('redisClusterNodes')[0] ?? ''}`) })
  afterAll(() => { node.disconnect() })

  it.each(Object.entries(groups))('%s: one slot', async (_name, group) => {
    const slots = await Promise.all(group.map(async (key) => await node.cluster('KEYSLOT', PREFIX + key)))
    expect(new Set(slots).size).toBe(1)
  })

  it('places every key builder of keys.ts: in a checked group, used alone, or refused on a cluster', () => {
    const unplaced = builderPaths(keys).filter((path) => !grouped.has(path) && !alone.has(path) && !path.startsWith(refused))
    expect(unplaced).toEqual([])
  })

  it('spreads different clubs and shards over different slots (a tag is not one slot for everything)', async () => {
    const slots = await Promise.all(
      ['club-norte', 'club-sur', 'club-este', 'club-oeste'].map(async (club) => await node.cluster('KEYSLOT', PREFIX + c.index(club)))
    )
    expect(new Set(slots).size).toBeGreaterThan(1)
  })
})
