import { randomInt, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { shardOf } from '../../src/stores/shards.ts'
import { envelopeOf } from '../../src/chat/store/scripts.ts'
import { unpackSession } from '../../src/chat/session-codec.ts'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { keys } from '../../src/stores/keys.ts'
import { addressOf, type SendBody } from '../../src/chat/outbound/messages.ts'
import { encodeMail } from '../../src/chat/mail.ts'
import { chatMetrics } from '../../src/chat/metrics.ts'
import { MemoryPace } from '../../src/chat/outbound/pace.ts'
import type { OutboxEntry } from '../../src/chat/outbound/transport.ts'
import type { SenderOptions } from '../../src/chat/sender.ts'
import type { ChatStore, TurnWork } from '../../src/chat/store/index.ts'
import pino from 'pino'
import { Registry } from 'prom-client'
import { TEST_SECRETS, type TestApp } from '../helper.ts'

// What the chat tests share: signed webhook calls, message bodies, and a loopback server standing in for the
// messaging provider's send API (the one part we cannot run).

export const newPhone = (): string => `549${randomInt(1e9, 1e10 - 1)}`

/** The Redis key of a phone's record (sharded by the app's CHAT_SHARDS). */
export const sessionKey = (app: TestApp['app'], phone: string): string => keys.chat.bot.session(shardOf(phone, app.config.chat.shards), phone)

/** The phone's record as the Redis chat store keeps it (src/chat/store/redis.ts): version `v`, session document `d` (unpacked). */
export async function savedRecord (app: TestApp['app'], phone: string): Promise<{ v: number, d: string }> {
  const raw = (await app.redis!.get(sessionKey(app, phone)))!
  return { v: envelopeOf(raw).v ?? 0, d: unpackSession(raw.slice(raw.indexOf('\n') + 1)) }
}

/** The saved session document, parsed. */
export const savedSession = async (app: TestApp['app'], phone: string) => JSON.parse((await savedRecord(app, phone)).d)

/** Replaces the saved session document (a test setting up a state; stored as JSON, as before packing, which still reads), keeping the record's time to live. */
export async function rewriteSession (app: TestApp['app'], phone: string, doc: string): Promise<void> {
  const raw = (await app.redis!.get(sessionKey(app, phone)))!
  await app.redis!.set(sessionKey(app, phone), `${raw.slice(0, raw.indexOf('\n'))}\n${doc}`, 'KEEPTTL')
}

export type Input = { text: string } | { reply: string, title?: string } | { button: string } | { type: string }

export function messageBody (phone: string, input: Input, id: string = `wamid.${randomUUID()}`): Record<string, unknown> {
  const base = { id, from: phone }
  let message: Record<string, unknown>
  if ('text' in input) message = { ...base, type: 'text', text: { body: input.text } }
  else if ('reply' in input) {
    const kind = input.reply.startsWith('product:') || input.reply.startsWith('variant:') || input.reply.startsWith('tenant:') ? 'list_reply' : 'button_reply'
    message = { ...base, type: 'interactive', interactive: { type: kind, [kind]: { id: input.reply, title: input.title ?? input.reply } } }
  } else if ('button' in input) message = { ...base, type: 'button', button: { payload: input.button, text: input.button } }
  else message = { ...base, type: input.type, [input.type]: { id: 'media-1' } }
  return { message, conversation: { id: `conv-${phone}`, phone_number: phone }, phone_number_id: '100000000000001' }
}

export interface WebhookCall {
  event?: string
  key?: string
  signature?: string
  secret?: string
}

/** POSTs a body to the webhook, signed like the provider does unless told otherwise. */
export async function postWebhook (app: TestApp['app'], body: unknown, call: WebhookCall = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-webhook-event': call.event ?? 'chat.message.received',
    'x-webhook-signature': call.signature ?? signWebhookBody(call.secret ?? TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw),
  }
  if (call.key) headers['x-idempotency-key'] = call.key
  return await app.inject({ method: 'POST', url: '/api/chat/webhook', headers, payload: raw })
}

/** Sends one member input and waits until the bot has finished with it. */
export async function say (t: TestApp, phone: string, input: Input): Promise<void> {
  const res = await postWebhook(t.app, messageBody(phone, input), { key: randomUUID() })
  if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}: ${res.body}`)
  await t.app.chatWorker.idle(phone)
}

/** Replies the local outbox holds for a phone (no CHAT_API_BASE_URL). */
export async function outbox (t: TestApp, phone: string, after = 0): Promise<Array<{ seq: number, body: SendBody, author: string }>> {
  const res = await t.app.inject(`/api/chat/dev/outbox?phone=${phone}&after=${after}`)
  return res.json().messages
}

/** The reply ids (buttons or rows) a message offers. */
export function choiceIds (body: SendBody): string[] {
  if (body.type !== 'interactive') return []
  const i = body.interactive
  if (i.type === 'button') return i.action.buttons.map((b) => b.reply.id)
  if (i.type === 'list') return i.action.sections.flatMap((s) => s.rows.map((r) => r.id))
  return []
}

export function textOf (body: SendBody): string {
  if (body.type === 'template') return body.template.components?.[0]?.parameters.map((p) => p.text).join(' | ') ?? ''
  return body.type === 'text' ? body.text.body : body.interactive.body.text
}

export interface ProviderCall {
  url: string
  authorization: string | undefined
  idempotencyKey: string | undefined
  body: SendBody
  /** the message id the stand-in answered with */
  messageId: string
}

/** A loopback stand-in for the provider's send API; `plan` answers the next calls (then 200). */
export interface FakeProvider {
  url: string
  calls: ProviderCall[]
  plan: Array<{ status: number, headers?: Record<string, string>, hangMs?: number, body?: string }>
  attempts: number
  to: (phone: string) => SendBody[]
  close: () => Promise<void>
}

async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startFakeProvider (): Promise<FakeProvider> {
  const fake: FakeProvider = {
    url: '',
    calls: [],
    plan: [],
    attempts: 0,
    to: (phone) => fake.calls.filter((c) => addressOf(c.body) === phone).map((c) => c.body),
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) },
  }
  const server: Server = createServer((req, res) => {
    readBody(req).then(async (raw) => {
      fake.attempts++
      const next = fake.plan.shift()
      if (next?.hangMs) await new Promise((resolve) => setTimeout(resolve, next.hangMs))
      if (res.destroyed) return
      if (next && next.status >= 300) {
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body ?? '{"error":{"message":"try later"}}')
        return
      }
      const messageId = `wamid.${randomUUID()}`
      fake.calls.push({
        url: req.url ?? '',
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['x-idempotency-key'] as string | undefined,
        body: JSON.parse(raw),
        messageId
      })
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages: [{ id: messageId }] }))
    }).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}

/** Logs a demo member in through the service's own login route: their real token for that club. */
export async function memberToken (t: TestApp, email: string, tenantId: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST', url: '/auth/customer/emailpass', headers: { 'tenant-id': tenantId }, payload: { email, password: 'demo-password' }
  })
  if (res.statusCode !== 200) throw new Error(`login of ${email} answered ${res.statusCode}: ${res.body}`)
  return res.json().token
}

/** A link code made the way the club's website makes it after a web login. */
export async function linkCode (t: TestApp, member: { customerId: string, email: string, name: string, tenantId: string, token: string }): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/chat/link', payload: member })
  if (res.statusCode !== 201) throw new Error(`link code answered ${res.statusCode}: ${res.body}`)
  return res.json().code
}

/**
 * A phone's first message accepted and its turn taken by 'worker', with the `n` text replies (`r0`, `r1` ...) its
 * commit would queue: the send tests' starting point.
 */
export async function takenWithReplies (
  store: ChatStore, n = 1, tenantId?: string
): Promise<{ phone: string, id: string, work: TurnWork, replies: OutboxEntry[] }> {
  const phone = newPhone()
  const id = `wamid.${randomUUID()}`
  await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
  const taken = await store.takeTurn(phone, 'worker', 30_000)
  if (taken.kind !== 'ok') throw new Error('the turn was not taken')
  const replies: OutboxEntry[] = Array.from({ length: n }, (_, i) => ({
    id: `${id}:${i}`,
    phone,
    tenantId,
    at: Date.now(),
    body: { messaging_product: 'whatsapp', recipient_type: 'individual', to: phone, type: 'text', text: { body: `r${i}` } },
  }))
  return { phone, id, work: taken.work, replies }
}

/** A phone with `n` replies waiting in its outbox (takenWithReplies, committed). */
export async function phoneWithReplies (store: ChatStore, n = 1, tenantId?: string): Promise<{ phone: string, ids: string[] }> {
  const { phone, id, work, replies } = await takenWithReplies(store, n, tenantId)
  const turn = { expected: work.session.version, doc: '{}', applied: [id], message: work.message, replies: replies.map((r) => JSON.stringify(r)) }
  if ((await store.commitTurn(phone, 'worker', turn, 30_000)).kind === 'lost') throw new Error('the turn was not committed')
  return { phone, ids: replies.map((r) => r.id) }
}

/** A sender's options as the chat plugin gives them, with what a test sets in `opts`. */
export const senderOptions = (opts: Partial<SenderOptions> = {}): SenderOptions => ({
  owner: 'A',
  leaseMs: 30_000,
  concurrency: 4,
  shards: 16,
  horizonMs: 60_000,
  pace: new MemoryPace(1_000),
  businessNumber: '5491100000000',
  log: pino({ level: 'silent' }),
  metrics: chatMetrics(new Registry(), async () => 0),
  clock: Date.now,
  crashPoint: () => {},
  handedBack: () => {},
  receiptOf: (entry, messageId) => ({ address: entry.phone, messageId, replyId: entry.id, tenantId: entry.tenantId, kind: 'reply', at: Date.now() }),
  windowClosed: async () => {},
  ...opts,
})
