import { shardOf } from './shards.ts'

// Every Redis key name of the service, in one place. The client's keyPrefix (REDIS_KEY_PREFIX) is added by
// ioredis, so a Lua script must only touch keys it receives in KEYS.
//
// Redis Cluster: the keys that one script, MULTI or pipeline touches share a hash tag (the part in braces,
// which alone picks the slot): the club list under {tenants}, a club's crops under {crops:<club>}, its batches under {batches:<club>}, its content
// under {content:<club>}, a recipient's notifications under {notif:<club>:<shard>}, its broadcasts under
// {notif:<club>}, a phone's chat under {chat:<shard>}. Keys only ever used one at a time carry no tag, so they
// spread over the whole cluster. test/stores/key-slots.test.ts holds each script's keys to one slot.

/** Shards of a club's notification recipients (part of the key names: fixed for the life of the data). */
export const NOTIFICATION_SHARDS = 16

/** A stable shard of the recipient id (the chat's phone hash), spreading a club's recipients over the cluster. */
export const notificationShard = (recipientId: string): number => shardOf(recipientId, NOTIFICATION_SHARDS)

const recipientTag = (tenantId: string, recipientId: string): string => `{notif:${tenantId}:${notificationShard(recipientId)}}`

export const keys = {
  tenants: {
    all: () => '{tenants}:all',
    one: (tenantId: string) => `{tenants}:${tenantId}`,
    // hash of the names clubs took by renaming: n:<name key> -> club id, i:<club id> -> its name key
    names: () => '{tenants}:names',
  },
  staff: {
    byEmail: (email: string) => `staff:${email.toLowerCase()}`,
    // hash email -> role of one club's staff: where "the last admin stays" is decided
    roster: (tenantId: string) => `t:${tenantId}:staff`,
    // the second (by staff id) before which their tokens are refused, moved on by every role change and removal
    // (src/plugins/auth.ts compares a token's iat). Kept after a removal, so old tokens stay refused.
    revokedBefore: (staffId: string) => `staff:rb:${staffId}`,
    // pub/sub channel (no prefix from ioredis, the live hub adds it): the staff member's access changed
    accessChanged: (staffId: string) => `staff:access:${staffId}`,
  },
  // single-use tokens (staff invites, member password tokens) by the SHA-256 of the token, with their expiry as TTL
  oneUseToken: (kind: 'staff-invite' | 'member-password', hash: string) => `one-use:${kind}:${hash}`,
  crops: {
    // crop ids of a tenant, scored by creation time
    index: (tenantId: string) => `{crops:${tenantId}}:index`,
    // hash: doc (JSON record with its harvests), status, v (version for compare-and-set)
    one: (tenantId: string, cropId: string) => `{crops:${tenantId}}:crop:${cropId}`,
    // ids of crops that count against the plan (not FINISHED)
    active: (tenantId: string) => `{crops:${tenantId}}:active`,
    // list of plant JSON in creation order, and the set of their codes
    plants: (tenantId: string, cropId: string) => `{crops:${tenantId}}:crop:${cropId}:plants`,
    plantCodes: (tenantId: string, cropId: string) => `{crops:${tenantId}}:crop:${cropId}:plant-codes`,
    batchSeq: (tenantId: string) => `{crops:${tenantId}}:harvest-batch-seq`,
    // hash id -> JSON
    catalog: (tenantId: string, kind: 'strains' | 'spaces' | 'lights') => `{crops:${tenantId}}:catalog:${kind}`,
  },
  batches: {
    // A club's batches share its tag: a handover draws from several in one script.
    // batch numbers scored by harvest date
    index: (tenantId: string) => `{batches:${tenantId}}:index`,
    // hash: doc (JSON record), sum (its summary for lists), v (version for compare-and-set)
    one: (tenantId: string, batchNumber: string) => `{batches:${tenantId}}:batch:${batchNumber}`,
    // batch numbers with units of the variant on sale, scored by best-before (earliest drawn first)
    offers: (tenantId: string, variantId: string) => `{batches:${tenantId}}:offers:${variantId}`,
    // hash order id -> JSON of the units its handover drew from which batches (undone by a reversal)
    draws: (tenantId: string) => `{batches:${tenantId}}:draws`,
    // held while a variant's stocked quantity is read and set in the commerce backend (packaging, recall)
    stockLock: (tenantId: string, inventoryItemId: string) => `t:${tenantId}:batches:stock-lock:${inventoryItemId}`,
  },
  commerce: {
    // the embedded commerce backend keeps all its keys under this root
    root: () => 'commerce:',
    // one record (hash of rev and JSON doc) per entity, e.g. doc('order', id)
    doc: (kind: string, id: string) => `commerce:${kind}:${id}`,
    // ids of a kind (or of a kind within a scope, e.g. orders of a sales channel), scored by creation time
    index: (name: string) => `commerce:idx:${name}`,
    // a unique value (email, publishable key, handle, payment id) pointing at the id that owns it
    lookup: (name: string, value: string) => `commerce:by:${name}:${value}`,
    // set once, atomically with the order, when a cart completes: the order id
    cartOrder: (cartId: string) => `commerce:cart-order:${cartId}`,
    // stock of an inventory item: fields <location>:stocked, <location>:reserved, ...
    stock: (inventoryItemId: string) => `commerce:stock:${inventoryItemId}`,
    displayIdSeq: (salesChannelId: string) => `commerce:seq:display:${salesChannelId}`,
  },
  orders: {
    idempotency: (tenantId: string, key: string) => `t:${tenantId}:orders:idem:${key}`,
    upstreamToken: (tenantId: string, subject: string) => `t:${tenantId}:orders:upstream-token:${subject}`,
    // held while an order's metadata (activity log, invoice flags) is read, changed and written back whole
    metadataLock: (tenantId: string, orderId: string) => `t:${tenantId}:orders:lock:${orderId}`,
    // hash cart id -> JSON: a cart being completed whose outcome is not settled yet (src/orders/unsettled.ts); taken
    // and given back with a cart's completion lock in one script, so under one tag
    unsettled: (tenantId: string) => `{orders:${tenantId}}:unsettled`,
    // the same hash before it had a tag: its notes are moved to the tagged one by each sweep
    legacyUnsettled: (tenantId: string) => `t:${tenantId}:orders:unsettled`,
    // held while a cart is completed, or its completion settled: one at a time per cart, whatever the instance
    completionLock: (tenantId: string, cartId: string) => `{orders:${tenantId}}:complete-lock:${cartId}`,
  },
  accounts: {
    // logins of an email in the current lock window (taken before the password is tried)
    loginAttempts: (email: string) => `accounts:login-attempts:${email.toLowerCase()}`,
  },
  notifications: {
    root: () => 'notif:',
    // A recipient's keys share the tag of their shard of the club ({notif:<club>:<shard>}, shard = a stable hash
    // of the recipient id, NOTIFICATION_SHARDS per club) with that shard's expiry registry, which their scripts
    // keep up to date; every script gets each of them in KEYS.
    recipient: (tenantId: string, recipientId: string) => {
      const base = `${recipientTag(tenantId, recipientId)}:u:${encodeURIComponent(recipientId)}:`
      return {
        // zsets of ids scored by createdAt: every notice, unread ones, read ones, by domain, by source
        all: `${base}all`,
        unread: `${base}unread`,
        read: `${base}read`,
        domain: (domain: string) => `${base}d:${domain}`,
        source: (source: string) => `${base}s:${source}`,
        // ids scored by expiresAt
        expiry: `${base}exp`,
        // hash of the records: <id>:data (JSON), <id>:readAt, <id>:updatedAt, <id>:ext
        records: `${base}records`,
        // hash externalId -> id
        external: `${base}ext`,
        // scratch zset of a filtered listing, deleted by the same script
        scratch: `${base}tmp`,
        // the recipient's position in a role's broadcast feed
        broadcastCursor: (role: string) => `${base}bc:${role}`,
      }
    },
    // recipients of a club's shard scored by their earliest expiry, so the cleanup visits only those with expired notices
    expiring: (tenantId: string, shard: number) => `{notif:${tenantId}:${shard}}:expiring`,
    // a club's broadcasts: one position counter, per role a feed of ids by position and the same by expiry, the records
    broadcastSeq: (tenantId: string) => `{notif:${tenantId}}:bc-seq`,
    broadcastFeed: (tenantId: string, role: string) => `{notif:${tenantId}}:bc-feed:${role}`,
    broadcastFeedExpiry: (tenantId: string, role: string) => `{notif:${tenantId}}:bc-feed:${role}:exp`,
    broadcast: (tenantId: string, id: string) => `{notif:${tenantId}}:bc:${id}`,
    remindersLock: () => 'notif:reminders:lock',
    // pub/sub channel names: ioredis does not prefix them, the live hub adds the configured prefix itself
    liveRecipient: (tenantId: string, recipientId: string) => `notif:live:${tenantId}:u:${encodeURIComponent(recipientId)}`,
    liveRole: (tenantId: string, role: string) => `notif:live:${tenantId}:role:${role}`,
  },
  content: {
    appointments: (tenantId: string) => `{content:${tenantId}}:appointments`,
    // appointment ids scored by startsAt
    appointmentsByStart: (tenantId: string) => `{content:${tenantId}}:appointments:by-start`,
    tasks: (tenantId: string) => `{content:${tenantId}}:tasks`,
    // task ids scored by due day; `open` holds only PENDING and IN_PROGRESS ones
    tasksByDue: (tenantId: string) => `{content:${tenantId}}:tasks:by-due`,
    tasksOpen: (tenantId: string) => `{content:${tenantId}}:tasks:open`,
  },
  chat: {
    root: () => 'chat:',
    linking: {
      // pending link code (spec, Link record), deleted when consumed
      code: (code: string) => `chat:link:code:${code}`,
      // hash tenantId -> linked account JSON, and updates-off:<tenantId> -> '1' where the member turned chat updates off
      accounts: (phone: string) => `chat:link:accounts:${phone}`,
      // present while the login form sent to this phone may be answered
      invite: (phone: string) => `chat:link:invite:${phone}`,
      // reverse index: phones linked to a club's member (set); a hint checked against the phone's accounts on read
      members: (tenantId: string, customerId: string) => `chat:link:members:${tenantId}:${encodeURIComponent(customerId)}`,
      // login attempts through the form in the current window
      attempts: (kind: 'phone' | 'email', id: string) => `chat:link:attempts:${kind}:${id}`,
    },
    // Everything of one phone, and the per-shard queues its scripts touch, share the hash tag {chat:<shard>}
    // (shard = a stable hash of the phone, shards.ts), so each script runs on one Redis Cluster slot
    // and no key is written by every turn.
    bot: {
      // the phone's record, one JSON string (fields in src/chat/store/scripts/includes/phone-record.lua): the session with its
      // compare-and-set version and applied inbound ids, the attempts at the mailbox head and the moment of the
      // last inbound message
      session: (shard: number, phone: string) => `{chat:${shard}}:s:${phone}`,
      // sorted set of the de-duplication markers of the phone's last 24 h, scored by when (scripts/includes/markers.lua)
      seen: (shard: number, phone: string) => `{chat:${shard}}:seen:${phone}`,
      // list of the phone's accepted messages, oldest first; the head stays until its turn is committed
      mailbox: (shard: number, phone: string) => `{chat:${shard}}:mailbox:${phone}`,
      // list of the phone's replies (JSON entries with an id), oldest first; the head stays until delivered
      outbox: (shard: number, phone: string) => `{chat:${shard}}:outbox:${phone}`,
      // zsets of the shard's phones with mail / with replies to send, scored by when they may next be taken
      // (now, a lease's end, or a backoff's end); hashes phone -> token of the worker holding the lease
      ready: (shard: number) => `{chat:${shard}}:ready`,
      owners: (shard: number) => `{chat:${shard}}:owners`,
      sendable: (shard: number) => `{chat:${shard}}:sendable`,
      senders: (shard: number) => `{chat:${shard}}:senders`,
      // hash phone -> failed attempts at the outbox head
      sendTries: (shard: number) => `{chat:${shard}}:send-tries`,
      // dead letters of the shard: hash id -> JSON; each club's ids scored by when they died, so that one club's
      // failures never push another's out; `deadIndex` holds the ids of letters of no club (and, before the
      // per-club index, every letter: moved at start-up, src/chat/dead-letter-index.ts)
      dead: (shard: number) => `{chat:${shard}}:dead`,
      deadIndex: (shard: number) => `{chat:${shard}}:dead:index`,
      deadOfClub: (shard: number, tenantId: string) => `{chat:${shard}}:dead:club:${tenantId}`,
      // what consuming a link code answered this phone, for a turn re-run after a crash: dropped once the turn is
      // committed (10 minutes if it never is)
      linkResult: (shard: number, phone: string, code: string) => `{chat:${shard}}:link-result:${phone}:${code}`,
      // a system message (order update, reminder) already queued for the phone, by its id
      systemSent: (shard: number, phone: string, id: string) => `{chat:${shard}}:system-sent:${phone}:${id}`,
      // shard pub/sub channel (SPUBLISH): phones with new mail; ioredis does not prefix channels, the caller does
      wake: (shard: number) => `{chat:${shard}}:wake`,
      // A conversation is one club's with one phone: its history and record are keyed by both, under the phone's
      // tag, so that a turn's commit records it in the same script (a club id has no ':', a phone may).
      // conversation history for staff: list of messages (compact entries), newest first, capped and expiring
      history: (shard: number, tenantId: string, phone: string) => `{chat:${shard}}:history:${tenantId}:${phone}`,
      // hash of the conversation as staff list it: tenantId, lastAt, lastInboundAt, unread (inbound since staff
      // last read), handoff (flag JSON, machines/handoff.ts)
      conversation: (shard: number, tenantId: string, phone: string) => `{chat:${shard}}:conversation:${tenantId}:${phone}`,
      // zset '<tenantId>:<phone>' -> deadline of the shard's handoffs nobody took yet
      handoffDue: (shard: number) => `{chat:${shard}}:handoff-due`,
      // the keys of a phone's single conversation before it was kept per club: moved at start-up (inbox/migrate.ts)
      legacyHistory: (shard: number, phone: string) => `{chat:${shard}}:history:${phone}`,
      legacyConversation: (shard: number, phone: string) => `{chat:${shard}}:conversation:${phone}`,
      // hash of one sent reply by the provider's message id (src/chat/receipts): meta (JSON: reply id, club, kind),
      // sent/delivered/read (the earliest time each was reported), failed (JSON: the earliest failure)
      receipt: (shard: number, address: string, messageId: string) => `{chat:${shard}}:receipt:${address}:${messageId}`,
      // hash reply id (the outbox entry's) -> the provider's message id, for the history's statuses: one per
      // period of the time it was written (src/chat/receipts/port.ts, sentPeriod), each kept as long as the receipts
      // of its last reply, so that a phone that writes every day does not keep every reply id it was ever sent
      sentIds: (shard: number, address: string, period: number) => `{chat:${shard}}:sent:${period}:${address}`,
      // the same, before it was kept per period: read until it expires (written no more)
      legacySentIds: (shard: number, address: string) => `{chat:${shard}}:sent-ids:${address}`,
    },
    // present once every phone's single conversation of before was moved to its club's (src/chat/inbox/migrate.ts)
    conversationsMoved: () => 'chat:conversations-moved',
    // hash instance id -> alive until (epoch ms): a heartbeat each second tells who stopped (src/chat/recovery.ts)
    instances: () => '{chat-instances}:alive',
    // index of a club's conversations, phone -> last activity (its own hash tag per club: written by a second
    // call after the phone's, so it may lag; a phone listed whose conversation is gone is dropped by time)
    clubConversations: (tenantId: string) => `{chat-club:${tenantId}}:conversations`,
    // pub/sub channel of a club's conversation activity (SSE); ioredis does not prefix channels, the caller does
    clubActivity: (tenantId: string) => `chat-club:${tenantId}:activity`,
    // the provider's pace of a business number (src/chat/outbound/pace.ts): when its next message may go; its
    // own tag, written by every send of that number from every instance
    pace: (businessNumber: string) => `{chat-pace:${businessNumber}}`,
  },
  // Dispensing (src/dispensing): a member's standing, quota and open reservations share the tag
  // {disp:<club>:<member>}, so the read-check-write of an order's grams is one script on one slot; a club's
  // dispensing record shares {ledger:<club>}.
  dispensing: {
    member: (tenantId: string, memberId: string) => {
      const base = `{disp:${tenantId}:${encodeURIComponent(memberId)}}:`
      return {
        // hash: doc (the standing's JSON) and the fields the scripts read: status, birthDate, memberSince,
        // validUntil, allowance (mg), updatedAt (compare-and-set version)
        standing: `${base}standing`,
        // hash of the current periods' totals in mg: d, du, dr (day id, used, reserved), m, mu, mr, y, yu, yr
        quota: `${base}quota`,
        // hash reservation id (the cart's) -> JSON {mg, d, m, y}: grams reserved by an order not yet handed over
        holds: `${base}holds`,
      }
    },
    ledger: (tenantId: string) => ({
      // hash seq -> entry JSON (with its hash and the previous one's)
      entries: `{ledger:${tenantId}}:entries`,
      // hash: seq, hash (the last entry's), firstSeq, anchor (hash before the first kept entry, after retention)
      head: `{ledger:${tenantId}}:head`,
      // zset seq scored by the entry's time (ms): date ranges and retention
      byTime: `{ledger:${tenantId}}:by-time`,
      // hash order id -> JSON list of the entries its handover wrote; entry id -> the entry reversing it
      orders: `{ledger:${tenantId}}:orders`,
      reversed: `{ledger:${tenantId}}:reversed`,
    }),
    // zset seq scored by the entry's time (ms), one per member and one per product of the club's record: the
    // record's list filtered by member or product is paged by Redis; on the record's tag
    ledgerIndex: (tenantId: string, by: 'member' | 'product', id: string) => `{ledger:${tenantId}}:by-${by}:${encodeURIComponent(id)}`,
    // zset member id scored by the day number of its validUntil (days since 1970-01-01): the daily pass finds who
    // expires soon or has expired without a scan; its own tag per club (members' standings are on theirs)
    byValidUntil: (tenantId: string) => `{disp-valid:${tenantId}}:by-valid-until`,
    // held while an order is handed over (one handover of an order at a time, across instances)
    handoverLock: (tenantId: string, orderId: string) => `t:${tenantId}:dispensing:handover:${orderId}`,
    // held by the instance running the daily dispensing job (retention of the record)
    dailyLock: () => 'dispensing:daily:lock',
  },
  rateLimit: () => 'rate-limit:',
} as const
