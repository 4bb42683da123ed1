import { randomUUID } from 'node:crypto'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import { request } from 'undici'
import type { SendBody } from '../src/chat/outbound/messages.ts'
import { signWebhookBody } from '../src/chat/signature.ts'

// `npm run chat -- --phone 5491100000001 [--url http://localhost:3000] [--secret ...]`: play a member against a
// running service through its real signed webhook. Type text, or the number of a button or list row; when the
// bot sends the login form, type `form` to fill it in (club, email, password) through the real flow endpoint.
// The bot's replies, and staff and system messages (named by their author), are read from the service's local
// outbox (it must run without CHAT_API_BASE_URL).

const { values } = parseArgs({
  options: {
    phone: { type: 'string' },
    url: { type: 'string', default: 'http://localhost:3000' },
    secret: { type: 'string' },
  },
})
const phone = values.phone?.replace(/^\+/, '')
const secret = values.secret ?? process.env.CHAT_WEBHOOK_SECRET
if (!phone || !/^\d{6,15}$/.test(phone)) fail('give the member\'s phone: --phone 5491100000001')
if (!secret) fail('give the webhook secret the server uses: --secret ... or CHAT_WEBHOOK_SECRET')
const base = values.url.replace(/\/+$/, '')

function fail (message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

interface Choice { id: string, title: string, description?: string }
let choices: Choice[] = []
let seen = 0
let formOffered = false

function render (body: SendBody, author: string): void {
  if (body.type === 'text') {
    // a plain question (how many?) follows the last choices: numbers typed now are text again
    choices = []
    // staff (`staff:<user id>`) and system messages are named as such, the bot's as bot
    process.stdout.write(`\n${author}: ${body.text.body}\n`)
    return
  }
  if (body.type === 'template') {
    process.stdout.write(`\nbot (template ${body.template.name}): ${body.template.components?.[0]?.parameters.map((p) => p.text).join(' | ') ?? ''}\n`)
    return
  }
  const i = body.interactive
  process.stdout.write(`\nbot: ${i.body.text}\n`)
  if (i.type === 'button') choices = i.action.buttons.map((b) => b.reply)
  else if (i.type === 'list') choices = i.action.sections.flatMap((s) => s.rows)
  else {
    formOffered = true
    process.stdout.write(`  [login form "${i.action.parameters.flow_cta}": type "form" to fill it in]\n`)
    return
  }
  choices.forEach((c, n) => process.stdout.write(`  ${n + 1}. ${c.title}${c.description ? ` (${c.description})` : ''}\n`))
}

let inFlight: Promise<void> | undefined
/** One read of the outbox at a time, so that no reply is shown twice. */
async function poll (): Promise<void> {
  inFlight ??= readOutbox().finally(() => { inFlight = undefined })
  await inFlight
}

async function readOutbox (): Promise<void> {
  const res = await request(`${base}/api/chat/dev/outbox?phone=${phone}&after=${seen}`)
  if (res.statusCode === 404) fail('the service has no local outbox: run it without CHAT_API_BASE_URL and NODE_ENV=production')
  const { messages } = await res.body.json() as { messages: Array<{ seq: number, body: SendBody, author?: string }> }
  for (const m of messages) {
    render(m.body, m.author ?? 'bot')
    seen = Math.max(seen, m.seq)
  }
}

/** A number picks a shown choice (sent as the provider sends a tap); anything else is typed text. */
function messageFor (line: string): Record<string, unknown> {
  const picked = /^\d+$/.test(line) ? choices[Number(line) - 1] : undefined
  const id = `wamid.${randomUUID()}`
  if (!picked) return { id, from: phone, type: 'text', text: { body: line } }
  const kind = choices.length > 3 || picked.description ? 'list_reply' : 'button_reply'
  return { id, from: phone, type: 'interactive', interactive: { type: kind, [kind]: { id: picked.id, title: picked.title } } }
}

/** POSTs a JSON body signed as the provider signs it; returns the status and the parsed answer. */
async function signedPost (path: string, payload: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: unknown }> {
  const raw = JSON.stringify(payload)
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(secret as string, raw), ...headers },
    body: raw,
  })
  const text = await res.body.text()
  let body: unknown = text
  try { body = JSON.parse(text) } catch {}
  return { status: res.statusCode, body }
}

async function send (line: string): Promise<void> {
  const { status, body } = await signedPost('/api/chat/webhook', {
    message: messageFor(line), conversation: { id: `sim-${phone}`, phone_number: phone }, phone_number_id: 'simulator',
  }, { 'x-webhook-event': 'chat.message.received', 'x-idempotency-key': randomUUID() })
  if (status !== 200) process.stdout.write(`  [webhook answered ${status}: ${JSON.stringify(body)}]\n`)
}

interface FlowAnswer { screen?: string, data?: Record<string, unknown> }

/** The login form, screen by screen, as the messaging app would drive the flow endpoint. */
async function fillForm (rl: ReturnType<typeof createInterface>): Promise<void> {
  const exchange = async (screen: string, action: string, data: Record<string, unknown> = {}): Promise<FlowAnswer> => {
    const { status, body } = await signedPost('/api/chat/flow-endpoint', {
      source: 'simulator', data_exchange: { version: '3.0', screen, action, flow_token: phone, data }, signature_valid: true,
    })
    if (status !== 200) throw new Error(`the flow endpoint answered ${status}: ${JSON.stringify(body)}`)
    return body as FlowAnswer
  }
  const first = await exchange('CLUB_SELECT', 'INIT')
  const clubs = (first.data?.clubs ?? []) as Array<{ id: string, title: string }>
  clubs.forEach((c, n) => process.stdout.write(`  ${n + 1}. ${c.title}\n`))
  const club = clubs[Number(await rl.question('form> club number: ')) - 1]
  if (!club) throw new Error('no such club')
  let answer = await exchange('CLUB_SELECT', 'data_exchange', { club_id: club.id })
  while (answer.screen === 'LOGIN') {
    if (answer.data?.has_error) process.stdout.write(`  [${String(answer.data.error_message)}]\n`)
    const email = (await rl.question('form> email: ')).trim()
    const password = (await rl.question('form> password: ')).trim()
    if (!email) return
    answer = await exchange('LOGIN', 'data_exchange', { club_id: club.id, email, password })
  }
  process.stdout.write(`  [form: ${answer.screen} ${JSON.stringify(answer.data ?? {})}]\n`)
}

async function main (): Promise<void> {
  process.stdout.write(`chatting as ${phone} with ${base} (Ctrl-D to leave)\n`)
  await poll()
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  const timer = setInterval(() => { poll().catch(() => {}) }, 300)
  try {
    for (;;) {
      const line = (await rl.question('\nyou> ')).trim()
      if (!line) continue
      if (line === 'form' && formOffered) {
        await fillForm(rl).catch((err: unknown) => process.stdout.write(`  [${(err as Error).message}]\n`))
        await new Promise((resolve) => setTimeout(resolve, 600))
        await poll()
        continue
      }
      await send(line)
      await new Promise((resolve) => setTimeout(resolve, 400))
      await poll()
    }
  } catch {
    // stdin closed
  } finally {
    clearInterval(timer)
    rl.close()
  }
}

await main()
