import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { openSse } from '../notifications/sse-client.ts'
import { choiceIds, linkCode, newPhone, outbox, say as sayTo, startFakeProvider, textOf, type FakeProvider, type Input } from './support.ts'

// Staff in the loop, through the routes and a loopback provider: a member asks for a person, staff see the
// conversation flagged, take it over, write, the member answers (the bot is silent, the message kept), staff
// hand back and the bot resumes; the transcript staff read is complete and in order.

const HOUR = 60 * 60_000

describe('human handoff and the staff inbox (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let now = Date.now()
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, CHAT_HANDOFF_TIMEOUT_MS: '600000' }, chat: { clock: () => now } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const say = async (phone: string, input: Input) => {
    const before = provider.to(phone).length
    await sayTo(t, phone, input)
    return provider.to(phone).slice(before)
  }
  const linked = async (tenantId = 'club-norte') => {
    const phone = newPhone()
    const token = await t.token('member', [tenantId], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(phone, { text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId, token })}` })
    return phone
  }
  const staff = async (method: 'GET' | 'POST', url: string, opts: { sub?: string, role?: 'admin' | 'grower', tenant?: string, body?: unknown } = {}) => {
    const headers = await t.auth(opts.role ?? 'admin', opts.tenant ?? 'club-norte', { sub: opts.sub ?? 'user_admin_norte' })
    return await t.app.inject({ method, url, headers, ...(opts.body === undefined ? {} : { payload: opts.body as object }) })
  }

  it('a member asks for a person; staff take over, reply, hand back; the transcript is complete and in order', async () => {
    const phone = await linked()
    const menu = provider.to(phone).at(-1)!
    expect(choiceIds(menu)).toContain('menu:person')

    const asked = await say(phone, { text: 'quiero hablar con una persona' })
    expect(asked.map(textOf)).toEqual([expect.stringMatching(/^Listo, le avisamos a Club Norte\. Una persona del club te va a responder/)])
    // when: the club's hours from its settings
    expect(textOf(asked[0]!)).toContain('(horario: Lunes a viernes de 14 a 20)')

    const list = await staff('GET', '/api/chat/conversations?needsPerson=true')
    expect(list.statusCode).toBe(200)
    expect(list.json().conversations.map((c: { phone: string }) => c.phone)).toContain(phone)
    const flagged = list.json().conversations.find((c: { phone: string }) => c.phone === phone)
    expect(flagged).toMatchObject({ needsPerson: true, handoff: { status: 'requested' }, unread: 2 })

    const notices = await t.app.inject({ url: '/api/notifications', headers: await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' }) })
    expect(notices.json().notifications.map((n: { event: string }) => n.event)).toContain('chat.handoff.requested')

    // while the request waits, the bot does not answer
    expect(await say(phone, { text: 'hola?' })).toEqual([])

    const taken = await staff('POST', `/api/chat/conversations/${phone}/takeover`)
    expect(taken.statusCode).toBe(200)
    expect(taken.json().handoff).toMatchObject({ status: 'taken', by: 'user_admin_norte' })
    const again = await staff('POST', `/api/chat/conversations/${phone}/takeover`, { sub: 'user_grower_norte', role: 'grower' })
    expect(again.statusCode).toBe(409)
    expect(again.json().error.message).toContain('user_admin_norte')

    const sent = await staff('POST', `/api/chat/conversations/${phone}/messages`, { body: { text: 'Hola Bruno, soy Ana del club. ¿En qué te ayudo?' } })
    expect(sent.statusCode).toBe(201)
    await t.app.chatWorker.idle(phone)
    expect(textOf(provider.to(phone).at(-1)!)).toBe('Hola Bruno, soy Ana del club. ¿En qué te ayudo?')

    expect(await say(phone, { text: 'menu' })).toEqual([])

    const back = await staff('POST', `/api/chat/conversations/${phone}/handback`)
    expect(back.statusCode).toBe(200)
    await t.app.chatWorker.idle(phone)
    expect(textOf(provider.to(phone).at(-1)!)).toMatch(/^Volvés a hablar con el bot/)

    const resumed = await say(phone, { text: 'menu' })
    expect(choiceIds(resumed.at(-1)!)).toContain('menu:browse')

    const history = await staff('GET', `/api/chat/conversations/${phone}/messages?limit=100`)
    expect(history.statusCode).toBe(200)
    const transcript = (history.json().messages as Array<{ direction: string, author: string, text: string }>).reverse()
      .map((m) => `${m.direction} ${m.author.replace(/^staff:.*/, 'staff')}: ${m.text.split('\n')[0]}`)
    expect(transcript.slice(-8)).toEqual([
      'in member: quiero hablar con una persona',
      expect.stringMatching(/^out bot: Listo, le avisamos/),
      'in member: hola?',
      'out staff: Hola Bruno, soy Ana del club. ¿En qué te ayudo?',
      'in member: menu',
      expect.stringMatching(/^out bot: Volvés a hablar con el bot/),
      'in member: menu',
      'out bot: Club Norte: ¿qué querés hacer?',
    ])
    const after = await staff('GET', '/api/chat/conversations')
    expect(after.json().conversations.find((c: { phone: string }) => c.phone === phone)).toMatchObject({ needsPerson: false, handoff: null, unread: 0 })
  })

  it('the club\'s list leaves out a phone listed before its record is written, and one whose conversation is with another club only', async () => {
    const index = keys.chat.clubConversations('club-norte')
    const [pending, other] = [newPhone(), await linked('club-sur')]
    // the index is written beside the commit that writes the record: it may be read in between
    await t.app.redis!.zadd(index, now, pending, now, other)
    const list = await staff('GET', '/api/chat/conversations')
    expect(list.json().conversations.map((c: { phone: string }) => c.phone)).not.toContain(pending)
    expect(list.json().conversations.map((c: { phone: string }) => c.phone)).not.toContain(other)
    expect(await t.app.redis!.zscore(index, pending)).not.toBeNull()
    await t.app.redis!.zrem(index, pending, other)
  })

  it('the club\'s live stream (Redis pub/sub) shows the request and the member\'s words; a member may not open it', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const headers = await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' })
    const stream = await openSse(`${base}/api/chat/conversations/stream`, headers)
    try {
      expect(stream.status).toBe(200)
      const phone = await linked()
      await say(phone, { text: 'agente' })
      const flagged = await stream.waitFor((e) => e.event === 'handoff' && (e.data as { phone: string }).phone === phone)
      expect(flagged.data).toMatchObject({ handoff: { status: 'requested' } })
      await stream.waitFor((e) => e.event === 'message' && (e.data as { message: { text: string } }).message.text === 'agente')
    } finally {
      stream.close()
    }
    const member = await fetch(`${base}/api/chat/conversations/stream`, { headers: await t.auth('member', 'club-norte') })
    expect(member.status).toBe(403)
  })

  it('a member who chose English asks by typing the menu row\'s title, and is handed back in English', async () => {
    const phone = await linked()
    const english = await say(phone, { reply: 'menu:language', title: 'English' })
    expect(choiceIds(english.at(-1)!)).toContain('menu:person')
    const asked = await say(phone, { text: 'Talk to a person' })
    expect(asked.map(textOf)).toEqual([expect.stringMatching(/^Done, Club Norte has been told\. A person from the club will answer you here/)])
    expect((await staff('POST', `/api/chat/conversations/${phone}/takeover`)).statusCode).toBe(200)
    expect((await staff('POST', `/api/chat/conversations/${phone}/handback`)).statusCode).toBe(200)
    await t.app.chatWorker.idle(phone)
    expect(textOf(provider.to(phone).at(-1)!)).toBe('You are talking to the bot again. Type "menu" to see the options.')
  })

  it('a request nobody takes goes back to the bot with an apology', async () => {
    const phone = await linked()
    // the menu row's number, typed
    const menu = provider.to(phone).at(-1)!
    await say(phone, { text: String(choiceIds(menu).indexOf('menu:person') + 1) })
    expect(textOf(provider.to(phone).at(-1)!)).toMatch(/^Listo, le avisamos/)
    now += 11 * 60_000
    const answered = await say(phone, { text: 'menu' })
    expect(textOf(answered[0]!)).toMatch(/^Perdón, nadie del club pudo responder a tiempo/)
    expect(choiceIds(answered.at(-1)!)).toContain('menu:browse')
  })

  it('bad input: another club, unknown phone, outside the window, bad bodies', async () => {
    const phone = await linked()
    await say(phone, { text: 'hola' })
    expect(
      (await staff('POST', `/api/chat/conversations/${phone}/messages`, { tenant: 'club-sur', sub: 'user_admin_sur', body: { text: 'hi' } })).statusCode
    ).toBe(404)
    expect((await staff('GET', `/api/chat/conversations/${phone}/messages`, { tenant: 'club-sur', sub: 'user_admin_sur' })).statusCode).toBe(404)
    expect((await staff('POST', `/api/chat/conversations/${newPhone()}/takeover`)).statusCode).toBe(404)
    const bad = await staff('POST', `/api/chat/conversations/${phone}/messages`, { body: { text: '' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.code).toBe('VALIDATION_ERROR')
    expect((await staff('GET', '/api/chat/conversations/not-a-phone/messages')).statusCode).toBe(400)
    expect((await staff('GET', '/api/chat/conversations?limit=0')).statusCode).toBe(400)
    expect((await staff('GET', '/api/chat/conversations', { role: 'member' as 'admin' })).statusCode).toBe(403)

    now += 25 * HOUR
    const late = await staff('POST', `/api/chat/conversations/${phone}/messages`, { body: { text: 'sorry for the delay' } })
    expect(late.statusCode).toBe(409)
    expect(late.json().error.message).toMatch(/24 hours.*template/)
  })
})

describe('staff messages in the local outbox the simulator reads (memory)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'memory' }) })
  afterAll(async () => { await t.close() })

  it('a staff message is named by its author; the bot\'s are the bot\'s', async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' })
    await sayTo(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token })}`
    })
    await sayTo(t, phone, { text: 'human' })
    const headers = await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' })
    const sent = await t.app.inject({ method: 'POST', url: `/api/chat/conversations/${phone}/messages`, headers, payload: { text: 'Hi, this is the grower' } })
    expect(sent.statusCode).toBe(201)
    await t.app.chatWorker.idle(phone)
    const shown = (await outbox(t, phone)).slice(-2)
    expect(shown.map((m) => [m.author, textOf(m.body)])).toEqual([
      ['bot', expect.stringMatching(/^Listo, le avisamos/)],
      ['staff:user_grower_norte', 'Hi, this is the grower'],
    ])
  })
})
