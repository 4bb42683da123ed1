import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SendBody } from '../../src/chat/outbound/messages.ts'
import { demoIds } from '../../src/embedded-commerce/demo.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { completeCart } from '../orders/place-order.ts'
import { choiceIds, linkCode, memberToken, newPhone, say as sayTo, startFakeProvider, textOf, type FakeProvider, type Input } from './support.ts'

// The club's rules in the member's chat, through the signed webhook: Club Sur under de-kcang (25 g a day, 50 g a
// month, under 21: 30 g a month and nothing above 10 % THC), Ana ordering Critical Kush (5 g and 10 g units, 19 %
// THC). The menu says what is left, a quantity or an order over a cap says what is still possible, a lapsed member
// is told why and what to do, a young member is not offered the strong flower nor given it again by "repetir";
// in both languages.

const SUR = 'club-sur'
const FLOWER = demoIds.product('sur', 'flores-critical')
const MILD = demoIds.product('sur', 'flores-harlequin')

describe('chat bot under the club\'s rules (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let admin: Record<string, string>
  let ana: string
  let anaToken: string

  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url } })
    admin = await t.auth('admin', SUR, { sub: 'user_admin_sur', name: 'Admin Sur' })
    expect((await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers: admin, payload: { preset: 'de-kcang' } })).statusCode).toBe(200)
    anaToken = await memberToken(t, 'ana@example.com', SUR)
    ana = JSON.parse(Buffer.from(anaToken.split('.')[1]!, 'base64url').toString()).sub
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const say = async (phone: string, input: Input | string): Promise<SendBody[]> => {
    const before = provider.to(phone).length
    await sayTo(t, phone, typeof input === 'string' ? { text: input } : input)
    return provider.to(phone).slice(before)
  }
  const texts = (replies: SendBody[]) => replies.map(textOf).join('\n')
  const standing = async (patch: Record<string, unknown>) =>
    expect((await t.app.inject({ method: 'PATCH', url: `/api/members/${ana}`, headers: admin, payload: patch })).statusCode).toBe(200)
  const anaHeaders = () => ({ authorization: `Bearer ${anaToken}`, 'tenant-id': SUR })
  const variant = async (productId: string, grams: number): Promise<string> => {
    const products: Array<{ id: string, variants: Array<{ id: string, grams: number | null }> }> = (await t.app.inject({
      url: '/store/products?limit=50', headers: anaHeaders()
    })).json().products
    return products.find((p) => p.id === productId)!.variants.find((v) => v.grams === grams)!.id
  }
  /** Grams reserved by an order Ana places in the shop meanwhile (another device): the chat's cart is then over the cap. */
  const orderedElsewhere = async (grams: 5 | 10): Promise<string> => {
    const placed = await completeCart(t, anaHeaders(), [[await variant(FLOWER, grams), 1]], 'pickup')
    expect(placed.statusCode).toBe(200)
    return placed.json().order.id
  }
  const cancel = async (orderId: string) =>
    expect((await t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/cancel`, headers: admin })).statusCode).toBe(200)
  const linked = async (locale: 'es' | 'en' = 'es') => {
    const phone = newPhone()
    await say(phone, `LINK-${await linkCode(t, { customerId: ana, email: 'ana@example.com', name: 'Ana', tenantId: SUR, token: anaToken })}`)
    if (locale === 'en') await say(phone, 'English')
    return phone
  }

  it('the menu and the cart say the grams left in the tightest period; a quantity over the cap, then an order over it, ' +
    'say what is still possible', async () => {
    await standing({ status: 'active', birthDate: '1990-01-01' })
    const phone = await linked()
    const menu = await say(phone, 'menu')
    expect(texts(menu)).toMatch(/Te quedan 25 g hoy\./)
    expect(choiceIds(menu.at(-1)!)).toContain('menu:browse')
    // 3 x 10 g is over 25 g: refused when added, with the grams and units still possible, the quantity asked again
    const over = await say(phone, 'quiero 3 critical 10g')
    expect(texts(over)).toMatch(/Con esa cantidad pasás tu límite diario: podés sumar hasta 25 g más hoy \(2 unidades\)\./)
    expect(texts(await say(phone, '2'))).toMatch(/2 × .*Critical Kush|Critical Kush.*2/)
    const cart = await say(phone, 'carrito')
    expect(texts(cart)).toMatch(/Te quedan 25 g hoy\./)
    // an order placed meanwhile elsewhere reserves 10 g: the chat's 20 g cart is now over at the confirmation
    const elsewhere = await orderedElsewhere(10)
    await say(phone, 'carrito')
    await say(phone, { reply: 'cart:checkout' })
    const refused = await say(phone, { reply: 'order:confirm' })
    expect(texts(refused)).toMatch(/Este pedido pasa tu límite diario: te quedan 15 g hoy\. Bajá la cantidad/)
    expect(texts(refused)).not.toMatch(/Pedido #|probá de nuevo/)
    const quota = (await t.app.inject({ url: `/api/members/${ana}/quota`, headers: admin })).json().quota
    expect(quota.periods[0]).toMatchObject({ period: 'day', reserved: 10, remaining: 15 })
    await cancel(elsewhere)
  })

  it('a quantity that with the cart\'s other lines crosses the cap says how much this line may still grow', async () => {
    const phone = await linked()
    await say(phone, 'quiero 2 critical 10g')
    const over = await say(phone, 'quiero 2 critical 5g')
    expect(texts(over)).toMatch(/podés sumar hasta 5 g más hoy \(1 unidad\)\./)
    expect(texts(await say(phone, '1'))).not.toMatch(/Con esa cantidad/)
    const full = await say(phone, 'quiero 1 critical 5g')
    expect(texts(full)).toMatch(/Con esa cantidad pasás tu límite diario: no podés sumar más hoy\./)
  })

  it('in English: grams left, and the refusals with what is still possible', async () => {
    const phone = await linked('en')
    expect(texts(await say(phone, 'menu'))).toMatch(/25 g left today\./)
    expect(texts(await say(phone, '3 critical 10g'))).toMatch(/That quantity is over your daily limit: you can add up to 25 g more today \(2 units\)\./)
    await say(phone, '2')
    const elsewhere = await orderedElsewhere(10)
    await say(phone, 'cart')
    await say(phone, { reply: 'cart:checkout' })
    expect(texts(await say(phone, { reply: 'order:confirm' }))).toMatch(/over your daily limit: 15 g left today\. Lower the quantity/)
    await cancel(elsewhere)
  })

  it('a lapsed member still talks and asks for a person, is told why and what to do, and cannot order (both languages)', async () => {
    await standing({ status: 'lapsed', reason: 'registration not renewed' })
    const phone = await linked()
    const menu = await say(phone, 'menu')
    expect(texts(menu)).toMatch(/Tu membresía venció: renovala con el club .* pedir una persona escribiendo "persona"/)
    await say(phone, 'quiero 1 critical 5g')
    await say(phone, { reply: 'cart:checkout' })
    const refused = await say(phone, { reply: 'order:confirm' })
    expect(texts(refused)).toMatch(/Tu membresía venció/)
    expect(texts(refused)).not.toMatch(/Pedido #/)
    expect(texts(await say(phone, 'persona'))).toMatch(/Club Sur/)
    const en = await linked('en')
    expect(texts(await say(en, 'menu'))).toMatch(/Your membership has lapsed: renew it with the club .* ask for a person by typing "person"/)
    await standing({ status: 'active', reason: null })
  })

  it('a member under 21 is not offered a product above the THC ceiling, and sees the young monthly cap', async () => {
    const young = new Date()
    young.setUTCFullYear(young.getUTCFullYear() - 19)
    await standing({ birthDate: young.toISOString().slice(0, 10) })
    const phone = await linked()
    expect(texts(await say(phone, 'menu'))).toMatch(/Te quedan 25 g hoy\./)
    const page = await say(phone, { reply: 'menu:browse' })
    const shown = page.flatMap(choiceIds)
    expect(shown.some((id) => id.startsWith('product:'))).toBe(true)
    expect(shown).not.toContain(`product:${FLOWER}`)
    expect(texts(await say(phone, 'critical'))).not.toMatch(/Critical Kush/)
    await standing({ birthDate: '1990-01-01' })
  })

  it('"repetir" leaves out, and names, a product above a young member\'s THC ceiling; the rest goes into the cart', async () => {
    await standing({ birthDate: '1990-01-01' })
    const last = await completeCart(t, anaHeaders(), [[await variant(FLOWER, 5), 1], [await variant(MILD, 5), 1]], 'pickup')
    expect(last.statusCode).toBe(200)
    await cancel(last.json().order.id)
    const young = new Date()
    young.setUTCFullYear(young.getUTCFullYear() - 19)
    await standing({ birthDate: young.toISOString().slice(0, 10) })
    const phone = await linked()
    const repeated = texts(await say(phone, 'repetir'))
    expect(repeated).toMatch(/Pusimos tu último pedido en el carrito\. Sin stock o no disponibles ahora: Flores Critical Kush/)
    expect(repeated).toMatch(/Harlequin/)
    await standing({ birthDate: '1990-01-01' })
  })
})
