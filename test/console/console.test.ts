import { randomUUID } from 'node:crypto'
import { mkdir, readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { demoLogin, placeOrder } from '../orders/place-order.ts'
import { linkCode, messageBody, newPhone, startFakeProvider, textOf, type FakeProvider, type Input } from '../chat/support.ts'
import { as } from '../crops/client.ts'
import { stockedBatch } from '../batches/client.ts'
import { CSV_COLUMNS } from '../../src/dispensing/ledger/csv.ts'
import { launchChromium, seriousViolations, tabWalk, unreachableByTab } from './browser.ts'

// The console in a real headless Chromium against the real service on a socket and the test Redis; only the
// messaging provider is a loopback stand-in. One browser for the file, a context per person. With
// CONSOLE_SCREENSHOTS=1 the main screens are saved into docs/console/ for docs/console.md.

const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1'
const VIEWPORT = { width: 1024, height: 720 }

describe('the console in a browser', { timeout: 30_000 }, () => {
  let t: TestApp
  let provider: FakeProvider
  let browser: Browser
  let base: string
  let admin: BrowserContext
  let page: Page
  const cspErrors: string[] = []
  const phone = newPhone()

  beforeAll(async () => {
    provider = await startFakeProvider()
    const env = { CHAT_API_BASE_URL: provider.url, CHAT_HANDOFF_TIMEOUT_MS: '600000', CHAT_DISPLAY_NUMBER: '5491100000000' }
    t = await buildTestApp({ store: 'redis', env })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    browser = await launchChromium()
    admin = await newContext()
    page = await admin.newPage()
    if (SHOTS) await mkdir('docs/console', { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await provider?.close()
  })

  async function newContext (): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'es-AR' })
    context.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text()) })
    return context
  }
  const shot = async (p: Page, name: string) => { if (SHOTS) await p.screenshot({ path: `docs/console/${name}.png`, fullPage: true }) }
  const memberId = async (headers: Record<string, string>, email: string): Promise<string> =>
    (await t.app.inject({ url: `/api/members?q=${encodeURIComponent(email)}`, headers })).json().members[0].id
  /** No serious or critical axe violation, and every control on the screen reachable with Tab. */
  const checkA11y = async (p: Page) => {
    expect(await seriousViolations(p)).toEqual([])
    expect(await unreachableByTab(p)).toEqual([])
  }

  async function logIn (p: Page, kind: 'staff' | 'member', email: string): Promise<void> {
    await p.goto(`${base}/console`)
    if (kind === 'member') await p.getByLabel('Socio', { exact: true }).check()
    await p.getByLabel('Email').fill(email)
    await p.getByLabel('Contraseña').fill('demo-password')
    await p.getByRole('button', { name: 'Ingresar' }).click()
    await p.getByRole('button', { name: 'Salir' }).waitFor()
  }

  /** A member's input through the signed webhook on the real socket; resolves when the bot is done with it. */
  async function say (input: Input): Promise<void> {
    const raw = JSON.stringify(messageBody(phone, input))
    const res = await fetch(`${base}/api/chat/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-event': 'chat.message.received',
        'x-webhook-signature': signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw),
        'x-idempotency-key': randomUUID(),
      },
      body: raw,
    })
    expect(res.status).toBe(200)
    await t.app.chatWorker.idle(phone)
  }

  it('a member asks for a person: the inbox shows it live; staff take over, reply (it reaches the provider), hand back', async () => {
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say({ text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}` })

    await logIn(page, 'staff', 'admin@club-norte.test')
    await page.getByRole('heading', { name: 'Conversaciones' }).waitFor()
    const row = page.getByRole('button', { name: new RegExp(`\\+${phone}`) })
    await row.waitFor()
    await expect(row.textContent()).resolves.not.toMatch(/espera/)

    await say({ text: 'quiero hablar con una persona' })
    // no reload: the activity stream brings it, waiting on top
    await page.locator('.list li').first().getByText(/espera hace \d+ min/).waitFor()
    await expect(page.locator('.list li').first().textContent()).resolves.toContain(`+${phone}`)

    await row.click()
    await page.getByText('Pidió hablar con una persona.').waitFor()
    await page.getByRole('button', { name: 'Atender' }).click()
    await page.getByText('La atendés vos.').waitFor()
    await page.getByLabel('Respuesta').fill('Hola Bruno, soy del club.')
    await shot(page, 'inbox')
    await checkA11y(page)
    await page.getByRole('button', { name: 'Enviar' }).click()
    await expect.poll(() => provider.to(phone).map(textOf)).toContain('Hola Bruno, soy del club.')
    const reply = page.locator('.transcript li.out', { hasText: 'Hola Bruno, soy del club.' })
    // its delivery as the provider reported it so far
    await reply.locator('.delivery').getByText(/^(aceptado por el proveedor|enviado|entregado|leído)$/).waitFor()
    await expect.poll(() => page.getByLabel('Respuesta').inputValue()).toBe('')

    // the member's answer arrives live in the open transcript
    await say({ text: 'gracias, ya pasé a buscarlo' })
    await page.locator('.transcript li.in', { hasText: 'gracias, ya pasé a buscarlo' }).waitFor()

    await page.getByRole('button', { name: 'Devolver al bot' }).click()
    await page.getByText('La atiende el bot.').waitFor()
  })

  it('a 409 (someone else took the chat) is shown in words', async () => {
    const grower = await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' })
    const taken = await t.app.inject({ method: 'POST', url: `/api/chat/conversations/${phone}/takeover`, headers: grower, payload: {} })
    expect(taken.statusCode).toBe(200)
    await page.getByRole('button', { name: 'Atender' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toBe('No se pudo: ya la atiende Grower Norte.')
    await page.getByText('La atiende Grower Norte.', { exact: true }).waitFor()
    const back = await t.app.inject({ method: 'POST', url: `/api/chat/conversations/${phone}/handback`, headers: grower, payload: {} })
    expect(back.statusCode).toBe(200)
    // the stream brings the change: the screen says so without a reload
    await page.getByText('La atiende el bot.').waitFor()
  })

  it('a member without a phone number is listed and opened by the business-scoped user id, shown without a plus', async () => {
    const userId = `AR.${randomUUID().replace(/-/g, '')}`
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    const code = await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })
    const raw = JSON.stringify({
      message: { id: `wamid.${randomUUID()}`, from_user_id: userId, type: 'text', text: { body: `LINK-${code}` } },
      conversation: { business_scoped_user_id: userId }
    })
    const res = await fetch(`${base}/api/chat/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-event': 'chat.message.received',
        'x-webhook-signature': signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw)
      },
      body: raw,
    })
    expect(res.status).toBe(200)
    await t.app.chatWorker.idle(userId)
    const row = page.getByRole('button', { name: new RegExp(userId.replace('.', '\\.')) })
    await row.waitFor()
    await expect(row.textContent()).resolves.not.toContain(`+${userId}`)
    await row.click()
    await page.getByRole('heading', { name: `Conversación ${userId}` }).waitFor()
  })

  it('is reachable by keyboard: Tab goes through the menu, the conversations, the actions and the reply', async () => {
    const reached = await tabWalk(page, 16)
    const wanted = [
      'a:Chat', 'a:Mostrador', 'a:Pedidos', 'a:Socios', 'a:Cultivos', 'a:Lotes',
      `button:+${phone}`, 'button:Atender', 'button:Devolver al bot', 'textarea:Respuesta',
    ]
    for (const want of wanted) {
      expect(reached.some((r) => r.startsWith(want)), `${want} in ${reached.join(' | ')}`).toBe(true)
    }
  })

  it('a reload keeps the login, with no token in the URL; the cookie is HTTP-only and same-site strict', async () => {
    await page.reload()
    await page.getByRole('button', { name: 'Salir' }).waitFor()
    expect(page.url()).toBe(`${base}/console#/inbox`)
    const cookies = await admin.cookies(`${base}/console/session`)
    expect(cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
      { name: 'console_session', path: '/console/session', httpOnly: true, sameSite: 'Strict' },
    ])
    expect(await page.evaluate(() => document.cookie)).toBe('')
  })

  it('an expired token opens the login without losing the reply being typed', async () => {
    const short = await t.token('admin', ['club-norte'], { sub: 'user_admin_norte', name: 'Admin Norte', email: 'admin@club-norte.test', expiresIn: 5 })
    const expiresAt = JSON.parse(Buffer.from(short.split('.')[1]!, 'base64url').toString()).exp * 1000
    await admin.addCookies([{ name: 'console_session', value: short, domain: '127.0.0.1', path: '/console/session', httpOnly: true, sameSite: 'Strict' }])
    await page.reload()
    await page.getByRole('button', { name: new RegExp(`\\+${phone}`) }).click()
    await page.getByLabel('Respuesta').fill('Te escribo por tu pedido')
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Tu sesión venció').waitFor()
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
    // the screen under the dialog is inert; the dialog's form is reachable by keyboard
    await checkA11y(page)
    await dialog.getByLabel('Email').fill('admin@club-norte.test')
    await dialog.getByLabel('Contraseña').fill('demo-password')
    await dialog.getByRole('button', { name: 'Ingresar' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect(page.getByLabel('Respuesta').inputValue()).resolves.toBe('Te escribo por tu pedido')
    await page.getByRole('button', { name: 'Enviar' }).click()
    await expect.poll(() => provider.to(phone).map(textOf)).toContain('Te escribo por tu pedido')
  })

  it('an order is prepared: open it, mark it ready', async () => {
    const order = await placeOrder(t, await demoLogin(t, 'customer', 'ana@example.com'))
    await page.getByRole('link', { name: 'Pedidos' }).click()
    await page.getByRole('button', { name: new RegExp(`#${order.displayId}`) }).click()
    await page.getByRole('heading', { name: `Pedido #${order.displayId}` }).waitFor()
    await shot(page, 'orders')
    await checkA11y(page)
    await page.getByRole('button', { name: 'Marcar listo' }).click()
    await page.getByRole('status').getByText('Hecho.').waitFor()
    const after = await t.app.inject({ url: `/api/orders/${order.id}`, headers: await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' }) })
    expect(after.json().order.fulfillmentStatus).toBe('fulfilled')
    await page.getByRole('button', { name: 'Listos' }).click()
    await page.getByRole('button', { name: new RegExp(`#${order.displayId}`) }).waitFor()
  })

  it('an order is canceled with a reason: kept on the order and shown', async () => {
    const order = await placeOrder(t, await demoLogin(t, 'customer', 'ana@example.com'))
    await page.getByRole('button', { name: 'Para preparar' }).click()
    await page.getByRole('button', { name: new RegExp(`#${order.displayId}`) }).click()
    await page.getByRole('heading', { name: `Pedido #${order.displayId}` }).waitFor()
    await page.getByRole('button', { name: 'Cancelar pedido' }).click()
    await page.getByLabel('Motivo (opcional, queda en el pedido)').fill('Sin stock de la variedad pedida')
    await checkA11y(page)
    await page.getByRole('button', { name: 'Confirmar la cancelación' }).click()
    await page.getByText('Motivo de la cancelación: Sin stock de la variedad pedida').waitFor()
    await page.getByText('cancelado · ').first().waitFor()
    const { activities } = (await t.app.inject({ url: `/api/orders/${order.id}/activities`, headers: await t.auth('admin', 'club-norte') })).json()
    expect(activities.at(-1)).toMatchObject({ description: 'orders:activity.cancelled', note: 'Sin stock de la variedad pedida' })
    await page.getByRole('button', { name: 'Cancelados' }).click()
    await page.getByRole('button', { name: new RegExp(`#${order.displayId}`) }).waitFor()
  })

  it('members: register one, who gets a password token; the screen passes axe', async () => {
    await page.getByRole('link', { name: 'Socios' }).click()
    await page.getByRole('cell', { name: 'ana@example.com' }).waitFor()
    const email = `nuevo-${randomUUID().slice(0, 8)}@example.com`
    const form = page.locator('form.stack')
    await form.getByLabel('Email').fill(email)
    await form.getByLabel('Nombre').fill('Nuevo')
    await form.getByLabel('Apellido').fill('Socio')
    await form.getByLabel('Teléfono').fill('+54 9 11 5555-0101')
    await form.getByRole('button', { name: 'Registrar socio' }).click()
    await page.getByText(/Token de contraseña \(72 h, un solo uso\): \S+/).waitFor()
    const row = page.getByRole('row', { name: new RegExp(email) })
    await row.waitFor()
    // a new password token for one who has not set a password yet
    await row.getByRole('button', { name: 'Nuevo token de contraseña' }).click()
    await row.getByRole('status').getByText(/^Token de contraseña \(72 h, un solo uso\): \S+$/).waitFor()

    // their standing changed: suspended with a reason, valid until a day, a personal monthly allowance
    await row.getByRole('button', { name: 'Editar a Nuevo Socio' }).click()
    const edit = page.getByRole('region', { name: 'Socio: Nuevo Socio' })
    await edit.getByText('El club no fija límites de gramos.').waitFor()
    await edit.getByLabel('Situación').selectOption('suspended')
    await edit.getByLabel('Motivo del estado (opcional)').fill('Cuota impaga')
    await edit.getByLabel('Vigente hasta').fill('2030-06-30')
    await edit.getByLabel('Asignación mensual personal (g)').fill('12.5')
    await edit.getByRole('button', { name: 'Guardar' }).click()
    await edit.getByRole('status').getByText('Guardado.').waitFor()
    await edit.getByText('suspendido · Cuota impaga').waitFor()
    const headers = await t.auth('admin', 'club-norte')
    const id = await memberId(headers, email)
    const { standing } = (await t.app.inject({ url: `/api/members/${id}`, headers })).json()
    expect(standing).toMatchObject({ status: 'suspended', reason: 'Cuota impaga', validUntil: '2030-06-30', monthlyAllowanceGrams: 12.5 })
    // the allowance is their monthly limit now
    await edit.getByRole('row', { name: /Este mes/ }).getByText('12,5 g').first().waitFor()
    await shot(page, 'members')
    await checkA11y(page)
    // emptied, the club's limit applies again
    await edit.getByLabel('Asignación mensual personal (g)').fill('')
    await edit.getByRole('button', { name: 'Guardar' }).click()
    await edit.getByText('El club no fija límites de gramos.').waitFor()
    expect((await t.app.inject({ url: `/api/members/${id}`, headers })).json().standing.monthlyAllowanceGrams).toBeNull()
    await edit.getByRole('button', { name: 'Cerrar' }).click()
    await page.getByRole('heading', { name: 'Registrar socio' }).waitFor()
    // found by the phone as staff type it
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('11 5555 0101')
    await page.getByRole('button', { name: 'Buscar', exact: true }).click()
    await expect.poll(() => page.locator('tbody tr').allTextContents()).toEqual([expect.stringContaining(email)])
  })

  it('crops: by status with the next valid moves', async () => {
    await page.getByRole('link', { name: 'Cultivos' }).click()
    await page.locator('.list .item').first().click()
    await page.getByRole('heading', { name: 'Próximos pasos' }).waitFor()
    await shot(page, 'crops')
    await checkA11y(page)
  })

  it('the counter: a member found by name, with their standing, remaining grams and open orders', async () => {
    await page.getByRole('link', { name: 'Mostrador' }).click()
    await page.getByLabel('Buscar socio (nombre, email o teléfono)').fill('ana')
    await page.getByRole('button', { name: 'Buscar', exact: true }).click()
    await page.getByRole('button', { name: /Ana Pereyra/ }).click()
    await page.getByRole('heading', { name: 'Ana Pereyra' }).waitFor()
    await page.getByText('activo').or(page.getByText('pendiente')).first().waitFor()
    await page.getByRole('heading', { name: 'Pedidos abiertos' }).waitFor()
    const ready = page.locator('.detail li', { hasText: /^#\d+ · listo/ }).first()
    await ready.waitFor()
    await page.getByLabel('Identidad comprobada (documento a la vista)').check()
    await shot(page, 'counter')
    await checkA11y(page)
    const id = /#(\d+)/.exec(await ready.textContent() ?? '')![1]!
    await ready.getByRole('button', { name: `Entregar #${id}` }).click()
    await page.getByText('Entregado y anotado en el registro.').waitFor()
    await expect(page.getByRole('button', { name: `Entregar #${id}` }).count()).resolves.toBe(0)
  })

  it('batches: grams on hand, a lab analysis recorded, the batch recalled', async () => {
    const { batchNumber } = await stockedBatch(await as(t, 'grower'), 120)
    await page.getByRole('link', { name: 'Lotes' }).click()
    await page.getByRole('button', { name: new RegExp(batchNumber) }).click()
    await page.getByRole('heading', { name: new RegExp(`Lote ${batchNumber}`) }).waitFor()
    await page.getByText('Sin análisis de laboratorio.').waitFor()
    await page.getByLabel('THC %').fill('18.5')
    await page.getByLabel('CBD %').fill('0.4')
    await page.getByLabel('Referencia del informe').fill('LAB-1')
    await page.getByRole('button', { name: 'Registrar', exact: true }).click()
    await page.getByText('Laboratorio: THC 18.5 %, CBD 0.4 % (informe LAB-1).').waitFor()
    await shot(page, 'batches')
    await checkA11y(page)
    // the info sheet for the packaging: fetched with the token in a header, saved as a page to print
    const [sheet] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Hoja informativa (para imprimir)' }).click()])
    expect(sheet.suggestedFilename()).toBe(`hoja-lote-${batchNumber}.html`)
    const html = await readFile(await sheet.path(), 'utf8')
    expect(html).toContain('<h1>Hoja informativa del lote</h1>')
    expect(html).toContain(`<td>${batchNumber}</td>`)
    expect(html).toContain('<td>18,5 %</td>')
    await page.getByLabel('Motivo (se avisa a cada socio que lo recibió)').fill('Moho en el análisis')
    await page.getByRole('button', { name: 'Retirar el lote' }).click()
    await page.getByText('Estado: retirado').waitFor()
    const after = await t.app.inject({ url: `/api/batches/${batchNumber}`, headers: await t.auth('admin') })
    expect(after.json().batch.status).toBe('RECALLED')
  })

  it('the record: the entries of a handover, filtered by member, the chain verified intact; the screen passes axe', async () => {
    const order = await placeOrder(t, await demoLogin(t, 'customer', 'ana@example.com'), true)
    const headers = await t.auth('admin', 'club-norte', { sub: 'user_admin_norte', name: 'Admin Norte' })
    const handed = await t.app.inject({ method: 'POST', url: `/api/orders/${order.id}/handover`, headers, payload: { identityChecked: true } })
    expect(handed.statusCode).toBe(200)
    const { entries } = (await t.app.inject({ url: '/api/dispensing?limit=1000', headers })).json()
    const mine = entries.filter((e: { orderId: string }) => e.orderId === order.id)
    expect(mine.length).toBeGreaterThan(0)

    await page.getByRole('link', { name: 'Registro' }).click()
    await page.getByRole('heading', { name: 'Registro' }).waitFor()
    await page.getByLabel('Socio', { exact: true }).selectOption({ label: 'Ana Pereyra' })
    await page.getByRole('button', { name: 'Buscar', exact: true }).click()
    const rows = page.getByRole('row', { name: new RegExp(order.id) })
    await expect.poll(() => rows.count()).toBe(mine.length)
    await expect(rows.first().textContent()).resolves.toContain('Ana Pereyra')
    await page.getByRole('button', { name: 'Verificar el registro' }).click()
    await page.getByRole('status').getByText(/^El registro está intacto: \d+ entradas/).waitFor()

    // the CSV of the same filter, as the API gives it
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar CSV' }).click()])
    expect(file.suggestedFilename()).toBe('dispensing.csv')
    const lines = (await readFile(await file.path(), 'utf8')).trimEnd().split('\r\n')
    expect(lines[0]).toBe(CSV_COLUMNS.join(','))
    expect(lines.filter((l) => l.includes(order.id))).toHaveLength(mine.length)
    const anas = (await t.app.inject({ url: `/api/dispensing?limit=1000&memberId=${mine[0].memberId as string}`, headers })).json()
    expect(lines).toHaveLength(anas.count + 1)

    // the yearly report of the year shown, the API's figures
    const year = await page.getByLabel('Año', { exact: true }).inputValue()
    await page.getByRole('button', { name: 'Ver informe' }).click()
    const report = (await t.app.inject({ url: `/api/reports/dispensing?year=${year}`, headers })).json()
    expect(report.grams).toBeGreaterThan(0)
    const table = page.getByRole('table', { name: `${year}: ${report.grams.toLocaleString('es')} g dispensados` })
    await table.waitFor()
    await expect(table.locator('tbody tr').count()).resolves.toBe(report.strains.length)
    await shot(page, 'record')
    await checkA11y(page)
  })

  it('English on request; nothing of the last login is left after a log out and another log in', async () => {
    await page.getByLabel('Idioma').selectOption('en')
    await page.getByRole('link', { name: 'Chat' }).click()
    await page.getByRole('heading', { name: 'Conversations' }).waitFor()
    await page.getByLabel('Language').selectOption('es')
    await page.getByRole('button', { name: new RegExp(`\\+${phone}`) }).click()
    await page.getByLabel('Respuesta').fill('borrador del admin')
    await page.getByRole('button', { name: 'Salir' }).click()
    await page.getByRole('heading', { name: 'Ingresar' }).waitFor()
    expect(await admin.cookies(`${base}/console/session`)).toEqual([])
    await checkA11y(page)

    await page.getByLabel('Email').fill('grower@club-norte.test')
    await page.getByLabel('Contraseña').fill('demo-password')
    await page.getByRole('button', { name: 'Ingresar' }).click()
    await page.getByRole('heading', { name: 'Conversaciones' }).waitFor()
    // a grower has no members' nor record screen, and the admin's open conversation and draft are gone
    await expect(page.getByRole('link', { name: 'Socios' }).count()).resolves.toBe(0)
    await expect(page.getByRole('link', { name: 'Registro' }).count()).resolves.toBe(0)
    await expect(page.getByLabel('Respuesta').count()).resolves.toBe(0)
    await page.goto(`${base}/console#/members`)
    await page.getByRole('heading', { name: 'Conversaciones' }).waitFor()
    await page.goto(`${base}/console#/ledger`)
    await page.getByRole('heading', { name: 'Conversaciones' }).waitFor()
    await checkA11y(page)
  })

  it("another club's staff see nothing of the club before; over a limit the counter refuses the handover in words, by keyboard", async () => {
    // Club Sur under rules this test sets (de-kcang: 25 g a day, 50 g a month, pickup only), whatever the demo seeds
    const headers = await t.auth('admin', 'club-sur', { sub: 'user_admin_sur', name: 'Admin Sur' })
    expect((await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers, payload: { preset: 'de-kcang' } })).statusCode).toBe(200)
    const order = await placeOrder(t, await demoLogin(t, 'customer', 'ana@example.com', 'club-sur'), true, 'pickup')

    await page.getByRole('button', { name: 'Salir' }).click()
    await page.getByLabel('Email').fill('admin@club-sur.test')
    await page.getByLabel('Contraseña').fill('demo-password')
    await page.getByRole('button', { name: 'Ingresar' }).click()
    await page.getByRole('heading', { name: 'Conversaciones' }).waitFor()
    await page.getByText('Club Sur').waitFor()
    await page.getByText('Cargando…').waitFor({ state: 'detached' })
    // Club Norte's conversation (and the draft typed there) is nowhere
    await expect(page.getByText(`+${phone}`).count()).resolves.toBe(0)
    await expect(page.getByLabel('Respuesta').count()).resolves.toBe(0)

    // suspended, Ana is refused whatever she ordered
    await page.getByRole('link', { name: 'Socios' }).click()
    await page.getByRole('button', { name: 'Editar a Ana Pereyra' }).click()
    const edit = page.getByRole('region', { name: 'Socio: Ana Pereyra' })
    await edit.getByRole('row', { name: /Este mes/ }).waitFor()
    await edit.getByLabel('Situación').selectOption('suspended')
    await edit.getByRole('button', { name: 'Guardar' }).click()
    await edit.getByRole('status').getByText('Guardado.').waitFor()
    await page.getByRole('link', { name: 'Mostrador' }).click()
    await page.getByLabel('Buscar socio (nombre, email o teléfono)').fill('ana')
    await page.getByRole('button', { name: 'Buscar', exact: true }).click()
    await page.getByRole('button', { name: /Ana Pereyra/ }).click()
    await page.getByLabel('Identidad comprobada (documento a la vista)').check()
    await page.getByRole('button', { name: `Entregar #${order.displayId}` }).click()
    await page.getByRole('status').getByText('No se entrega: la situación del socio es «suspendido»').waitFor()

    // active again, with a monthly allowance below what she ordered
    await page.getByRole('link', { name: 'Socios' }).click()
    await page.getByRole('button', { name: 'Editar a Ana Pereyra' }).click()
    await edit.getByRole('row', { name: /Este mes/ }).waitFor()
    await edit.getByLabel('Situación').selectOption('active')
    await edit.getByLabel('Asignación mensual personal (g)').fill('1')
    await edit.getByRole('button', { name: 'Guardar' }).click()
    await edit.getByRole('status').getByText('Guardado.').waitFor()

    // at the counter, by keyboard: find Ana, open her, tick the identity check, hand over
    await page.getByRole('link', { name: 'Mostrador' }).click()
    await page.getByLabel('Buscar socio (nombre, email o teléfono)').focus()
    await page.keyboard.type('ana')
    await page.keyboard.press('Enter')
    await page.getByRole('button', { name: /Ana Pereyra/ }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Ana Pereyra' }).waitFor()
    const handOver = page.getByRole('button', { name: `Entregar #${order.displayId}` })
    await handOver.waitFor()
    const reached = await tabWalk(page, 16)
    for (const want of ['input:Buscar socio', 'button:Ana Pereyra', 'input:Identidad comprobada', `button:Entregar #${order.displayId}`]) {
      expect(reached.some((r) => r.startsWith(want)), `${want} in ${reached.join(' | ')}`).toBe(true)
    }
    await page.getByLabel('Identidad comprobada (documento a la vista)').focus()
    await page.keyboard.press('Space')
    await expect(page.getByLabel('Identidad comprobada (documento a la vista)').isChecked()).resolves.toBe(true)
    await handOver.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('No se entrega: supera el límite mensual: quedan 1 g').waitFor()
    // the table beside it: nothing taken this month, the order's grams in open orders, 1 g the limit
    const grams = (await t.app.inject({ url: `/api/members/${await memberId(headers, 'ana@example.com')}/quota`, headers })).json().quota.periods
      .find((p: { period: string }) => p.period === 'month')
    expect(grams).toMatchObject({ used: 0, limit: 1 })
    await page.getByRole('row', { name: `Este mes 0 g 0 g ${String(grams.reserved).replace('.', ',')} g 1 g` }).waitFor()
    await shot(page, 'counter-refused')
    await checkA11y(page)
    // refused: still open, nothing written in the record
    await handOver.waitFor()
    expect((await t.app.inject({ url: `/api/orders/${order.id}`, headers })).json().order.status).toBe('pending')
    const { entries } = (await t.app.inject({ url: '/api/dispensing?limit=1000', headers })).json()
    expect(entries.filter((e: { orderId: string }) => e.orderId === order.id)).toEqual([])
  })

  it("a member's own page: orders, notifications, and a link code as a QR code and a chat link", async () => {
    const member = await newContext()
    const p = await member.newPage()
    await logIn(p, 'member', 'ana@example.com')
    await p.getByRole('heading', { name: 'Mis pedidos' }).waitFor()
    await p.getByRole('term').getByText('Situación').waitFor()
    await p.getByRole('button', { name: 'Crear código' }).click()
    const qr = p.getByRole('img', { name: /Código QR que abre el chat con LINK-/ })
    await qr.waitFor()
    const href = await p.getByRole('link', { name: 'Abrir el chat' }).getAttribute('href')
    expect(href).toMatch(/^https:\/\/wa\.me\/5491100000000\?text=LINK-[0-9a-f-]{36}$/)
    // the code links the chat, as the bot's LINK- message does
    const code = decodeURIComponent(href!.split('text=')[1]!)
    await expect(p.getByText(code, { exact: true }).count()).resolves.toBe(1)
    await shot(p, 'member')
    await checkA11y(p)
    await member.close()
  })

  it('loads nothing that its content security policy refuses', () => {
    expect(cspErrors).toEqual([])
  })
})
