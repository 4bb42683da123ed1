import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { Dispatcher } from 'undici'
import { ClubServices } from './club-services.ts'
import { deadLetterRoutes } from './dead-letters.ts'
import { devOutboxRoute } from './dev-outbox-route.ts'
import type { InboundMessage } from './inbound.ts'
import { chatMetrics } from './metrics.ts'
import { DevOutbox, LocalTransport, ProviderTransport, type OutboxEntry, type Transport } from './outbound/messenger.ts'
import { createPace } from './outbound/pace.ts'
import { encodeMail } from './mail.ts'
import { Recovery } from './recovery.ts'
import { ConversationRuntime } from './runtime.ts'
import { Sender } from './sender.ts'
import { createChatStore, type Accepted, type Lane } from './store/index.ts'
import { WakeChannel } from './wake.ts'
import { webhookRoutes } from './webhook.ts'
import { HandoffRuntime } from './inbox/handoff-runtime.ts'
import { inboxRoutes } from './inbox/routes.ts'
import { inboxStreamRoutes } from './inbox/stream.ts'
import { keys } from '../stores/keys.ts'
import { ChatInbox, type ActivityEvent } from './inbox/service.ts'
import { createInboxStore } from './inbox/store.ts'
import { ChatUpdates } from './updates.ts'
import { readPhoneView } from './turn-view.ts'
import { TurnWorker } from './worker.ts'

// The chat bot: the signed webhook and the mailboxes, the turn worker (conversation runtime, one atomic commit
// per turn), the sender draining the outboxes, and the admin's dead letters.

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

/** A turn that failed this many times for a reason other than a lost connection becomes a dead letter. */
const MAX_TURN_TRIES = 5
/** Work in hand at shutdown gets this long to finish before its leases are left to run out. */
const STOP_GRACE_MS = 4_000

/** The fault suite's crash points (CHAT_CRASH_AT=<point>:<n>): SIGKILL at the n-th time the point is reached. */
function crashPoints (spec: string | undefined): (name: string) => void {
  if (!spec) return () => {}
  const [point, n] = spec.split(':')
  let left = Number(n)
  return (name) => { if (name === point && --left === 0) process.kill(process.pid, 'SIGKILL') }
}

export default fp<ChatPluginOptions>(async (app, opts) => {
  const clock = opts.clock ?? Date.now
  const chat = app.config.chat
  const log = app.log.child({ domain: 'chat' })
  const inboxStore = createInboxStore(app.redis, chat.shards, { historyMs: chat.historyDays * 24 * 60 * 60_000, historyMax: chat.historyMax }, clock)
  const readView = async (phone: string) => await readPhoneView({ linkedAccounts: app.linkedAccounts, conversations: inboxStore }, phone)
  const store = createChatStore(app.redis, chat.shards, inboxStore, readView)
  const metrics = chatMetrics(app.metrics, async () => await store.outboxPhones())
  const owner = randomUUID()
  const crashPoint = crashPoints(chat.crashAt)
  const wake = app.redis ? new WakeChannel(app.redis, app.config.redisKeyPrefix, chat.shards, owner) : undefined
  const publish = (lane: Lane, phones: string[]): void => {
    wake?.announce(lane, phones, (err) => { log.warn({ err }, 'chat wake-up not published') })
  }
  const lanes = { owner, leaseMs: chat.leaseMs, shards: chat.shards, log, metrics }
  // CHAT_LANES=off (a web instance): nothing below is started; work found here is announced to the instances
  // that run the lanes, over the wake channel, instead of offered to this one's runners
  const runsLanes = chat.lanes

  let transport: Transport
  if (chat.apiBaseUrl) {
    transport = new ProviderTransport({ baseUrl: chat.apiBaseUrl, phoneNumberId: chat.phoneNumberId, apiKey: chat.apiKey, timeoutMs: chat.sendTimeoutMs, ...opts.provider })
  } else {
    const devOutbox = new DevOutbox()
    transport = new LocalTransport(devOutbox, log)
    if (app.config.env !== 'production') await app.register(async (scope) => { await devOutboxRoute(scope, devOutbox) })
  }

  const runtime = new ConversationRuntime({
    api: new ClubServices({ store: app.storeFront, orders: app.orders, notifications: app.notifications, crops: app.crops, linkCodes: app.linkCodes, tenants: app.tenants, jwtSecret: app.config.jwtSecret, log }),
    tenants: app.tenants,
    linkedAccounts: app.linkedAccounts,
    loginFormInvites: app.loginFormInvites,
    jwtSecret: app.config.jwtSecret,
    flowId: chat.flowId,
    clock,
    log,
  }, store, readView, log)
  const pace = createPace(app.redis, chat.sendRate)
  const sender = new Sender(store, transport, { ...lanes, concurrency: chat.sendConcurrency, horizonMs: chat.sendHorizonMs, pace, businessNumber: chat.phoneNumberId, clock, crashPoint, handedBack: (phone) => { publish('send', [phone]) } })
  const inbox = new ChatInbox({
    store: inboxStore,
    chat: store,
    tenants: app.tenants,
    notifications: app.notifications,
    clock,
    handoffTimeoutMs: chat.handoffTimeoutMs,
    log,
    queued: (phone) => { wakeLane('send', [phone]) },
    activity: (tenantId: string, event: ActivityEvent) => {
      app.liveHub.publish(keys.chat.clubActivity(tenantId), { type: 'chat', event }).catch((err: Error) => { log.warn({ err }, 'chat activity not published') })
    },
  })
  const recordSystem = (entry: OutboxEntry): void => {
    inbox.recordSystem(entry).catch((err: Error) => { log.warn({ err }, 'chat history not recorded') })
  }
  const worker = new TurnWorker(store, new HandoffRuntime(runtime, inbox, readView), {
    ...lanes,
    concurrency: chat.turnConcurrency,
    maxTries: MAX_TURN_TRIES,
    committed: (phone, send) => { if (send) sender.runner.adopt(phone, send); else sender.runner.offer([phone]) },
    sender: () => sender.runner.saturated ? undefined : owner,
    crashPoint,
    handedBack: (phone) => { publish('turn', [phone]) },
    record: (message, result) => inbox.turnRecord(message, result.doc, result.replies),
    committing: (phone, recorded) => { inbox.committing(phone, recorded) },
  })

  const runners = { turn: worker.runner, send: sender.runner }
  function wakeLane (lane: Lane, phones: string[]): void {
    if (runsLanes) runners[lane].offer(phones)
    else publish(lane, phones)
  }

  // phones nobody may be on any more (a dead instance's, wake-ups lost while Redis was away)
  const recovery = new Recovery({ store, owner, shards: chat.shards, leaseMs: chat.leaseMs, runners, log })
  const reconnected = (): void => { recovery.sweepAll('Redis connection back') }

  // only phones whose mailbox was empty need a worker told: a phone with mail has one on it already (or a timer)
  const accepted = (result: Accepted): void => {
    metrics.accepted.inc(result.stored)
    if (result.due.length === 0) return
    wakeLane('turn', result.due)
    // more than this instance takes at once: let the others know
    if (runsLanes && worker.runner.saturated) publish('turn', result.due)
  }

  await app.register(async (scope) => {
    await webhookRoutes(scope, { secret: chat.webhookSecret, store, clock, accepted })
  })
  // a letter driven back is queued where no runner may look: tell its lane
  const redrive = async (id: string) => {
    const letter = await store.redrive(id)
    if (letter) wakeLane(letter.lane, [letter.phone])
    return letter
  }
  await app.register(async (scope) => { await deadLetterRoutes(scope, { deadLetters: store.deadLetters.bind(store), deadLetter: store.deadLetter.bind(store), redrive }) })
  await app.register(async (scope) => { await inboxRoutes(scope, inbox, clock) })
  await app.register(inboxStreamRoutes)
  app.decorate('chatInbox', inbox)
  // requests nobody took: handed back with an apology (a phone that writes first is handed back by its turn);
  // one shard per tick, every shard once a minute at most (about one command a second), at least four times
  // per timeout, so a request is handed back at most a minute after its deadline
  let handoffShard = 0
  const handoffTimer = runsLanes
    ? setInterval(() => {
      const shard = handoffShard
      handoffShard = (handoffShard + 1) % chat.shards
      inbox.expireDue(shard).catch((err: Error) => { log.warn({ err, shard }, 'chat handoff check failed') })
    }, Math.max(50, Math.min(60_000, chat.handoffTimeoutMs / 4) / chat.shards))
    : undefined
  handoffTimer?.unref()

  // order updates and reminders: each member notice also goes to the member's linked phones (src/chat/updates.ts)
  const updates = new ChatUpdates({ store, linkedAccounts: app.linkedAccounts, tenants: app.tenants, clock, log, queued: (phone) => { wakeLane('send', [phone]) }, recorded: (entry) => { recordSystem(entry) } })
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
      accepted(await store.accept([{ phone, id: message.id, body: encodeMail(message) }]))
    },
  })
  app.decorate('chatWorker', {
    idle: async (phone: string, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      while (await store.pending(phone)) {
        if (Date.now() > deadline) throw new Error(`chat pipeline of ${phone} still busy after ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
  })

  app.addHook('onReady', async () => {
    if (!runsLanes) {
      log.info('chat lanes off (CHAT_LANES=off): accepted messages are announced to the instances that run them')
      return
    }
    worker.runner.start()
    sender.runner.start()
    await wake?.listen((lane, phones) => { runners[lane].offer(phones) }, () => { recovery.sweepAll('wake-up subscription back') })
    recovery.start()
    app.redis?.on('ready', reconnected)
  })
  // SIGTERM: stop taking work, let turns in hand finish (or hand them back), cut sends short and hand them back
  app.addHook('preClose', async () => {
    clearInterval(handoffTimer)
    app.redis?.off('ready', reconnected)
    await Promise.all([worker.runner.stop(STOP_GRACE_MS), sender.runner.stop(STOP_GRACE_MS)])
    await recovery.stop()
    await wake?.close().catch(() => {})
    if (runsLanes) log.info('chat pipeline stopped: leases handed back')
  })
}, { name: 'chat', dependencies: ['auth', 'chat-linking', 'metrics', 'orders', 'crops', 'notifications'] })
