import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { Dispatcher } from 'undici'
import { ClubServices } from './club-services.ts'
import { devOutboxRoute } from './dev-outbox-route.ts'
import { Effects } from './effects.ts'
import type { InboundMessage } from './inbound.ts'
import { createMailbox } from './mailbox.ts'
import { DevOutbox, LocalMessenger, ProviderMessenger, type Messenger } from './outbound/messenger.ts'
import { ConversationRuntime } from './runtime.ts'
import { createSessionStore } from './sessions.ts'
import { webhookRoutes } from './webhook.ts'
import { ChatWorker, type WorkerOptions } from './worker.ts'

// The chat bot: the signed webhook, the mailboxes and their worker, the conversation runtime, outbound replies.

declare module 'fastify' {
  interface FastifyInstance {
    chatWorker: {
      /** Resolves once the phone has no message waiting or in progress on any instance (tests, tools). */
      idle (phone: string, timeoutMs?: number): Promise<void>
    }
  }
}

export interface ChatPluginOptions {
  /** Epoch ms; tests move it to see the 30-minute reset and expired links. */
  clock?: () => number
  worker?: WorkerOptions
  /** Retry tuning and transport of the provider client (tests). */
  provider?: { maxAttempts?: number, baseDelayMs?: number, maxDelayMs?: number, dispatcher?: Dispatcher }
}

export default fp<ChatPluginOptions>(async (app, opts) => {
  const clock = opts.clock ?? Date.now
  const chat = app.config.chat
  const log = app.log.child({ domain: 'chat' })
  const mailbox = createMailbox(app.redis)

  let messenger: Messenger
  if (chat.apiBaseUrl) {
    messenger = new ProviderMessenger({ baseUrl: chat.apiBaseUrl, phoneNumberId: chat.phoneNumberId, apiKey: chat.apiKey, log, ...opts.provider })
  } else {
    const outbox = new DevOutbox()
    messenger = new LocalMessenger(outbox, log)
    if (app.config.env !== 'production') await app.register(async (scope) => { await devOutboxRoute(scope, outbox) })
  }

  const effects = new Effects({
    api: new ClubServices({ store: app.storeFront, orders: app.orders, notifications: app.notifications, crops: app.crops, linkCodes: app.linkCodes, tenants: app.tenants, jwtSecret: app.config.jwtSecret, log }),
    messenger,
    tenants: app.tenants,
    linkedAccounts: app.linkedAccounts,
    loginFormInvites: app.loginFormInvites,
    jwtSecret: app.config.jwtSecret,
    flowId: chat.flowId,
    clock,
    log,
  })
  const runtime = new ConversationRuntime(createSessionStore(app.redis), effects, log)
  const worker = new ChatWorker(mailbox, async (message) => { await runtime.handle(message) }, log, opts.worker)

  await app.register(async (scope) => {
    await webhookRoutes(scope, { secret: chat.webhookSecret, mailbox, clock, accepted: () => { worker.wake() } })
  })

  app.decorate('chatBot', {
    accountLinked: async (phone: string) => {
      const message: InboundMessage = { id: `linked:${randomUUID()}`, phone, receivedAt: clock(), input: { kind: 'linked' } }
      await mailbox.accept([{ phone, id: message.id, body: JSON.stringify(message) }])
      worker.wake()
    },
  })
  app.decorate('chatWorker', { idle: async (phone: string, timeoutMs?: number) => { await worker.idle(phone, timeoutMs) } })

  app.addHook('onReady', async () => { worker.start() })
  app.addHook('preClose', async () => { await worker.stop() })
}, { name: 'chat', dependencies: ['auth', 'chat-linking', 'orders', 'crops', 'notifications'] })
