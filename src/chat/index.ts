import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { Dispatcher } from 'undici'
import { BotServices } from './bot-services.ts'
import { deadLetterRoutes } from './dead-letters.ts'
import { devOutboxRoute } from './dev-outbox-route.ts'
import type { InboundMessage } from './inbound.ts'
import { chatMetrics } from './metrics.ts'
import { ProviderClient } from './outbound/provider-client.ts'
import { DevOutbox, type OutboxEntry, type Transport } from './outbound/transport.ts'
import { createPace } from './outbound/pace.ts'
import { encodeMail } from './mail.ts'
import { ConversationRuntime } from './runtime.ts'
import { ChatPipeline } from './pipeline.ts'
import { createChatStore } from './store/index.ts'
import { cloudWebhookRoutes, webhookRoutes } from './webhook.ts'
import { ReceiptPath, receiptMetrics } from './receipts/path.ts'
import { createReceiptStore, receiptTtlMs, type SentReply } from './receipts/index.ts'
import type { AddressedStatuses } from './inbound.ts'
import { UPDATE_COPY } from './replies/updates-copy.ts'
import { classifyError, failureOutcome } from './provider/error-classes.ts'
import { insideReplyWindow } from './reply-window.ts'
import { HandoffGate } from './inbox/handoff-gate.ts'
import { inboxRoutes } from './inbox/routes.ts'
import { inboxStreamRoutes } from './inbox/stream.ts'
import { keys } from '../stores/keys.ts'
import { ChatInbox, type ActivityEvent } from './inbox/service.ts'
import { createInboxStore } from './inbox/store.ts'
import { moveConversations } from './inbox/migrate.ts'
import { indexDeadLettersByClub } from './dead-letter-index.ts'
import { ChatUpdates } from './updates.ts'
import { phoneViewReader } from './phone-view.ts'

// The chat plugin builds the chat's objects and registers its routes: the stores, the provider client, the bot
// (runtime.ts), the staff inbox, the pipeline that carries each message from the webhook to the provider
// (pipeline.ts says in order what happens to it), order updates, and the admin's dead letters.

declare module 'fastify' {
  interface FastifyInstance {
    chatWorker: {
      /** Resolves once the phone has nothing waiting or in progress (mail or replies) on any instance (tests, tools). */
      idle (phone: string, timeoutMs?: number): Promise<void>
    }
    /** Staff and system messages to a member, through the outbox, recorded in the conversation's history. */
    chatInbox: ChatInbox
  }
}

export interface ChatPluginOptions {
  /** Epoch ms; tests move it to see the 30-minute reset and expired links. */
  clock?: () => number
  /** Transport of the provider client (tests). */
  provider?: { dispatcher?: Dispatcher }
}

/** Status events applied side by side, and held at most, on the receipts' own path (src/chat/receipts/path.ts). */
const RECEIPT_WORKERS = 4
const RECEIPTS_HELD = 20_000

/** What a sent outbox entry was: an update the member must get (its kind names its template), or a reply. */
function sentReply (entry: OutboxEntry, messageId: string, at: number): SentReply {
  const kind = entry.author === 'system' ? entry.id.split(':')[1] : undefined
  const update = kind !== undefined && kind in UPDATE_COPY.en.text ? kind : undefined
  return {
    address: entry.phone,
    messageId,
    replyId: entry.id,
    tenantId: entry.tenantId,
    kind: update ? 'update' : 'reply',
    ...(update ? { update } : {}),
    ...(entry.template ? { template: entry.template } : {}),
    at,
  }
}

export default fp<ChatPluginOptions>(async (app, opts) => {
  const clock = opts.clock ?? Date.now
  const chat = app.config.chat
  const log = app.log.child({ domain: 'chat' })
  const inboxStore = createInboxStore(app.redis, chat.shards, { historyMs: chat.historyDays * 24 * 60 * 60_000, historyMax: chat.historyMax }, clock)
  const readView = phoneViewReader({ linkedAccounts: app.linkedAccounts, conversations: inboxStore })
  const receipts = createReceiptStore(app.redis, { shards: chat.shards, ttlMs: receiptTtlMs(chat.historyDays) })
  // a delivered reply's receipt starts in the script that removes it from the outbox (in memory, in the receipts store)
  const store = createChatStore(
    app.redis, chat.shards, inboxStore, { ttlMs: receiptTtlMs(chat.historyDays), record: async (reply) => { await receipts.recordSent(reply) } }, readView
  )
  const metrics = chatMetrics(app.metrics, async () => await store.outboxPhones())

  let transport: Transport
  if (chat.apiBaseUrl) {
    transport = new ProviderClient({
      baseUrl: chat.apiBaseUrl, phoneNumberId: chat.phoneNumberId, apiKey: chat.apiKey, timeoutMs: chat.sendTimeoutMs, ...opts.provider
    })
  } else {
    const devOutbox = new DevOutbox(log)
    transport = devOutbox
    if (app.config.env !== 'production') await app.register(async (scope) => { await devOutboxRoute(scope, devOutbox) })
  }

  const runtime = new ConversationRuntime({
    services: new BotServices({
      store: app.storeFront,
      orders: app.orders,
      notifications: app.notifications,
      crops: app.crops,
      dispensing: app.dispensing,
      linkCodes: app.linkCodes,
      tenants: app.tenants,
      jwtSecret: app.config.jwtSecret,
      log
    }),
    tenants: app.tenants,
    linkedAccounts: app.linkedAccounts,
    loginFormInvites: app.loginFormInvites,
    jwtSecret: app.config.jwtSecret,
    flowId: chat.flowId,
    clock,
    log,
  }, store, readView, log)
  const inbox = new ChatInbox({
    store: inboxStore,
    chat: store,
    tenants: app.tenants,
    linkedAccounts: app.linkedAccounts,
    notifications: app.notifications,
    clock,
    handoffTimeoutMs: chat.handoffTimeoutMs,
    log,
    queued: (phone) => { pipeline.queued(phone) },
    activity: (tenantId: string, event: ActivityEvent) => {
      app.liveHub.publish(keys.chat.clubActivity(tenantId), { type: 'chat', event }).catch((err: Error) => { log.warn({ err }, 'chat activity not published') })
    },
    receipts: async (phone, replyIds) => await receipts.receiptsOfReplies(phone, replyIds),
  })
  const rMetrics = receiptMetrics(app.metrics)
  const receiptPath = new ReceiptPath(receipts, {
    concurrency: RECEIPT_WORKERS,
    maxPending: RECEIPTS_HELD,
    metrics: rMetrics,
    log,
    // an update the member must get goes again as its template when the window is closed; otherwise it shows in
    // the staff inbox as a failed delivery with the provider's reason; any failed reply shows failed in the history
    failed: async (sent, failure) => {
      log.warn({ replyId: sent.replyId, kind: sent.kind, code: failure.code, reason: failure.title }, 'chat reply failed on its way to the member')
      if (sent.kind !== 'update') return
      const windowOpen = insideReplyWindow(await store.lastInbound(sent.address), clock())
      const outcome = failureOutcome({ kind: 'update', source: 'failed', windowOpen, errorClass: classifyError({ code: failure.code }) })
      if (outcome === 'template') await updates.sendTemplate({ id: sent.replyId, phone: sent.address, tenantId: sent.tenantId, template: sent.template })
      else if (outcome === 'inbox' && sent.tenantId) {
        await inbox.deliveryFailed(sent.address, sent.tenantId, { replyId: sent.replyId, ...(sent.update ? { update: sent.update } : {}), failure })
      }
    },
  })
  // status events of no known recipient cannot name a reply: counted with the unknown ids and dropped
  const statuses = (list: AddressedStatuses[]): boolean => list.every(({ address, updates }) => {
    if (address === undefined) {
      rMetrics.unknown.inc(new Set(updates.map((u) => u.messageId)).size)
      return true
    }
    return receiptPath.offer(address, updates)
  })
  const pipeline = new ChatPipeline({
    owner: randomUUID(),
    store,
    redis: app.redis,
    redisKeyPrefix: app.config.redisKeyPrefix,
    turns: new HandoffGate(runtime, inbox, readView, runtime.sessions),
    history: inbox,
    transport,
    pace: createPace(app.redis, chat.sendRate),
    receiptOf: (entry, messageId) => sentReply(entry, messageId, clock()),
    windowClosed: async (entry) => { await updates.sendTemplate(entry) },
    chat,
    clock,
    metrics,
    log,
    swept: () => { inbox.readDeadlines() },
  })

  const foreign = (n: number): void => { metrics.foreign.inc(n) }
  // one adapter per provider at the edge; everything behind the webhook is the same (docs/chat.md, Providers)
  const hook = { clock, pipeline, statuses, phoneNumberId: chat.phoneNumberId, foreign }
  const cloud = chat.cloud
  if (cloud) await app.register(async (scope) => { await cloudWebhookRoutes(scope, { ...hook, cloud }) })
  else await app.register(async (scope) => { await webhookRoutes(scope, { ...hook, secret: chat.webhookSecret }) })
  await app.register(async (scope) => {
    await deadLetterRoutes(scope, {
      deadLetters: store.deadLetters.bind(store), deadLetter: store.deadLetter.bind(store), redrive: pipeline.redrive.bind(pipeline)
    })
  })
  await app.register(async (scope) => { await inboxRoutes(scope, inbox, clock) })
  await app.register(inboxStreamRoutes)
  app.decorate('chatInbox', inbox)
  if (chat.lanes) inbox.startExpiry(chat.shards)

  // order updates and reminders: each member notice also goes to the member's linked phones (src/chat/updates.ts)
  const updates = new ChatUpdates({
    store,
    linkedAccounts: app.linkedAccounts,
    tenants: app.tenants,
    clock,
    log,
    queued: (phone) => { pipeline.queued(phone) },
    recorded: (entry) => { inbox.recordSystem(entry).catch((err: Error) => { log.warn({ err }, 'chat history not recorded') }) },
  })
  app.notifications.observe(async (notice) => {
    try {
      await updates.onNotice(notice)
    } catch (err) {
      log.warn({ err, event: notice.event, resourceId: notice.resourceId }, 'chat update not queued: a retry of the step queues it')
    }
  })

  app.decorate('chatBot', {
    accountLinked: async (phone: string) => {
      const message: InboundMessage = { id: `linked:${randomUUID()}`, phone, receivedAt: clock(), input: { kind: 'linked' } }
      await pipeline.accept([{ phone, id: message.id, body: encodeMail(message) }])
    },
  })
  app.decorate('chatWorker', { idle: pipeline.idle.bind(pipeline) })

  app.addHook('onReady', async () => {
    // before any turn: a conversation of before becomes its club's (inbox/migrate.ts)
    if (app.redis) {
      await moveConversations({
        redis: app.redis, tenants: app.tenants, linkedAccounts: app.linkedAccounts, shards: chat.shards, limits: inboxStore.limits, log
      })
    }
    // and a dead letter of before is listed in its club's index (dead-letter-index.ts)
    if (app.redis) await indexDeadLettersByClub({ redis: app.redis, shards: chat.shards, log })
    await pipeline.start()
  })
  app.addHook('preClose', async () => {
    inbox.stopExpiry()
    await pipeline.stop()
    await receiptPath.drained()
  })
}, { name: 'chat', dependencies: ['auth', 'chat-linking', 'metrics', 'orders', 'crops', 'notifications'] })
