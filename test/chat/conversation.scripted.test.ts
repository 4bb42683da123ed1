import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendBody, type SendBody } from '../../src/chat/outbound/messages.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import {
  choiceIds, linkCode, newPhone, savedRecord, savedSession, say as sayTo, sessionKey, startFakeProvider, textOf, type FakeProvider, type Input
} from './support.ts'

// Scripted conversations of a member, one per promise of the bot: signed webhook in, the real runtime, club
// services and Redis, replies out to a loopback provider; every reply is checked against the provider's limits.

describe('chat bot, scripted conversations (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  /** Sends one input; the replies it produced, each within the provider's limits. */
  const say = async (phone: string, input: Input | string): Promise<SendBody[]> => {
    const before = provider.to(phone).length
    await sayTo(t, phone, typeof input === 'string' ? { text: input } : input)
    const replies = provider.to(phone).slice(before)
    for (const reply of replies) expect(sendBody.safeParse(reply).success).toBe(true)
    return replies
  }
  const texts = (replies: SendBody[]) => replies.map(textOf).join('\n')
  const choices = (replies: SendBody[]) => replies.flatMap(choiceIds)

  const MEMBERS = { bruno: { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' }, ana: { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' } }
  /** A new phone linked to the given clubs of a demo member; the first club linked is the one the menu is for. */
  const linked = async (tenants: string[] = ['club-norte'], who: keyof typeof MEMBERS = tenants.length > 1 ? 'ana' : 'bruno') => {
    const phone = newPhone()
    const { sub, name, email } = MEMBERS[who]
    const token = await t.token('member', tenants, { sub, name, email })
    for (const tenantId of tenants) await say(phone, `LINK-${await linkCode(t, { customerId: sub, email, name, tenantId, token })}`)
    return phone
  }
  const session = async (phone: string) => await savedSession(t.app, phone)

  it('not linked: "ayuda" explains how to link, "menu" and "cancelar" offer the way in again, an image re-shows it', async () => {
    const phone = newPhone()
    const help = await say(phone, 'ayuda')
    expect(texts(help)).toMatch(/vinculá tu cuenta del club: tocá "Iniciar sesión"/)
    expect(choices(help)).toEqual(['link:login', 'link:code'])
    for (const word of ['menu', 'cancelar']) expect(choices(await say(phone, word))).toEqual(['link:login', 'link:code'])
    const image = await say(phone, { type: 'image' })
    expect(texts(image)).toMatch(/No puedo ver imágenes/)
    expect(choices(image)).toEqual(['link:login', 'link:code'])
  })

  it('waiting for a code: help and cancel do what they say; garbage and emoji use no attempt', async () => {
    const phone = newPhone()
    await say(phone, { reply: 'link:code' })
    expect(texts(await say(phone, 'ayuda'))).toMatch(/Pegá el código/)
    for (const garbage of ['asdf', '🙂🙂', 'no sé']) expect(texts(await say(phone, garbage))).not.toMatch(/intento/)
    expect((await session(phone)).linkFailures).toBe(0)
    expect(choices(await say(phone, 'cancelar'))).toEqual(['link:login', 'link:code'])
  })

  it('choosing a club: typed name (any case, no accents, a prefix), "cancelar" and "ayuda" understood', async () => {
    const phone = await linked(['club-norte', 'club-sur'])
    expect(texts(await say(phone, 'ayuda'))).toMatch(/escribí su nombre/)
    expect(texts(await say(phone, 'cancelar'))).toMatch(/^Club Norte: /)
    await say(phone, { reply: 'menu:switch-club' })
    expect(texts(await say(phone, 'club s'))).toMatch(/^Te quedan 25 g hoy\.\nClub Sur: /) // de-kcang in the demo: the grams left first
    await say(phone, { reply: 'menu:switch-club' })
    expect(texts(await say(phone, 'NÖRTE'))).toMatch(/^Club Norte: /)
  })

  it('main menu: "hola" greets by name, "ayuda" says what can be typed, an image re-shows the menu', async () => {
    const phone = await linked()
    const hello = await say(phone, 'hola')
    expect(textOf(hello[0]!)).toBe('¡Hola, Bruno!')
    expect(texts(hello)).not.toMatch(/No entendí/)
    expect(choices(hello)).toContain('menu:browse')
    expect(texts(await say(phone, 'ayuda'))).toMatch(/escribir lo que buscás/)
    const image = await say(phone, { type: 'image' })
    expect(texts(image)).toMatch(/No puedo ver imágenes/)
    expect(choices(image)).toContain('menu:browse')
  })

  it('products by words: a typo finds the one product and asks the quantity, "dos" is two; a quantity said adds at once', async () => {
    const phone = await linked()
    const ask = await say(phone, 'picadr')
    expect(texts(ask)).toMatch(/Picador metálico: .* ¿Cuántas unidades/)
    expect(texts(await say(phone, 'dos'))).toMatch(/Agregado: 2 × Picador metálico/)
    await say(phone, 'menu')
    const added = await say(phone, 'quiero 3 aceite')
    expect(texts(added)).toMatch(/Agregado: 3 × Aceite CBD 10% 30 ml/)
    const variant = await say(phone, '2 amnesia 5g')
    expect(texts(variant)).toMatch(/Agregado: 2 × Flores Amnesia Haze \(5 g\)/)
    expect(texts(variant)).toMatch(/Total: \$\s?159\.000,00/)
  })

  it('products by words: a product with variants shows them; words that match nothing say so and keep the options', async () => {
    const phone = await linked()
    const variants = await say(phone, 'amnesia')
    expect(choices(variants).every((id) => id.startsWith('variant:'))).toBe(true)
    expect(choices(variants)).toHaveLength(2)
    const none = await say(phone, 'menu')
    expect(choices(none)).toContain('menu:browse')
    const nothing = await say(phone, 'bicicleta')
    expect(texts(nothing)).toMatch(/No encontré productos para "bicicleta"/)
    expect(choices(nothing)).toContain('menu:browse')
  })

  it('cart editing: change a line, remove a line; emptying the cart asks first', async () => {
    const phone = await linked()
    await say(phone, 'quiero 3 aceite')
    await say(phone, 'menu')
    await say(phone, '2 picador')
    const edit = await say(phone, { reply: 'cart:edit' })
    const lines = choices(edit)
    expect(lines.at(-1)).toBe('cart:clear')
    const ask = await say(phone, { reply: lines[0]!, title: 'Aceite' })
    expect(texts(ask)).toMatch(/tenés 3\. Escribí la nueva cantidad/)
    const changed = await say(phone, 'uno')
    expect(texts(changed)).toMatch(/Listo: 1 × Aceite/)
    expect(texts(changed)).toMatch(/Total: \$\s?45\.000,00/)

    await say(phone, { reply: 'cart:edit' })
    await say(phone, { reply: lines[1]! })
    const removed = await say(phone, { reply: 'line:remove' })
    expect(texts(removed)).toMatch(/Quitamos Picador metálico/)
    expect((await session(phone)).cart.map((l: { title: string }) => l.title)).toEqual(['Aceite CBD 10% 30 ml'])

    const cartId = (await session(phone)).cartId
    const token = await t.token('member', ['club-norte'], MEMBERS.bruno)
    const upstream = await t.app.inject({ url: `/store/carts/${cartId}`, headers: { authorization: `Bearer ${token}`, 'tenant-id': 'club-norte' } })
    expect(upstream.statusCode, upstream.body).toBe(200)
    expect(upstream.json().cart.items.map((i: { quantity: number }) => i.quantity)).toEqual([1])

    await say(phone, { reply: 'cart:edit' })
    const question = await say(phone, { reply: 'cart:clear' })
    expect(choices(question)).toEqual(['confirm:yes', 'confirm:no'])
    expect(texts(await say(phone, 'no'))).toMatch(/Tu carrito:/)
    await say(phone, { reply: 'cart:edit' })
    await say(phone, { reply: 'cart:clear' })
    const cleared = await say(phone, 'si')
    expect(texts(cleared)).toMatch(/Vaciamos tu carrito/)
    expect((await session(phone)).cart).toEqual([])
  })

  it('unlink asks first; unlinking one club with another linked goes to the remaining club\'s menu', async () => {
    const phone = await linked(['club-norte', 'club-sur'])
    await say(phone, 'cancelar')
    const question = await say(phone, { reply: 'menu:unlink' })
    expect(texts(question)).toMatch(/¿Desvincular este teléfono de Club Norte\?/)
    expect(choices(await say(phone, { reply: 'confirm:no' }))).toContain('menu:unlink')
    expect((await t.app.linkedAccounts.list(phone)).map((a) => a.tenantId)).toEqual(['club-norte', 'club-sur'])
    await say(phone, { reply: 'menu:unlink' })
    const gone = await say(phone, { reply: 'confirm:yes' })
    expect(texts(gone)).toMatch(/desvinculamos este teléfono de Club Norte/)
    expect(texts(gone)).toMatch(/Club Sur: /)
    expect(choices(gone)).not.toContain('menu:switch-club')
    expect((await t.app.linkedAccounts.list(phone)).map((a) => a.tenantId)).toEqual(['club-sur'])
  })

  it('language: "English" from the menu switches every message and is kept with the link; the club\'s default otherwise', async () => {
    const phone = await linked()
    const english = await say(phone, { reply: 'menu:language' })
    expect(texts(english)).toMatch(/Done, I will write in English\.\nClub Norte: what would you like to do\?/)
    expect(choices(english)).toContain('menu:language')
    expect((await t.app.linkedAccounts.list(phone))[0]?.locale).toBe('en')
    expect(textOf((await say(phone, 'hi'))[0]!)).toBe('Hi Bruno!')
    expect(texts(await say(phone, 'Español'))).toMatch(/te escribo en español/)

    const norte = await t.app.tenants.get('club-norte')
    await t.app.tenants.put({ ...norte!, locale: 'en' })
    try {
      const other = await linked()
      expect(texts(await say(other, 'hola'))).toMatch(/^Hi Bruno!/)
      expect(textOf((await say(phone, 'hola'))[0]!)).toBe('¡Hola, Bruno!')
    } finally {
      await t.app.tenants.put(norte!)
    }
  })

  it('media: a voice note without transcript, an image, a location, a sticker and a reaction each get their answer and the menu, in es and en', async () => {
    const phone = await linked()
    const answers = async (media: string) => {
      const replies = await say(phone, { type: media })
      expect(choices(replies)).toContain('menu:browse')
      return texts(replies)
    }
    expect(await answers('audio')).toMatch(/^No puedo escuchar audios\. Escribí lo que necesitás o elegí una opción del menú\.\nClub Norte: /)
    expect(await answers('image')).toMatch(/^No puedo ver imágenes\. .*pedí hablar con una persona\./)
    expect(await answers('document')).toMatch(/^No puedo abrir documentos\./)
    // the demo club has set where and when its members pick up
    expect(await answers('location')).toMatch(
      /^Gracias por la ubicación, pero no la uso: los pedidos se retiran en el club\. Retirás en Av\. Cabildo 1200, .+\)\.\n/
    )
    expect(await answers('sticker')).toMatch(/^¡Lindo sticker!/)
    expect(await answers('reaction')).toMatch(/^👍 ¡Recibido!/)
    await say(phone, { reply: 'menu:language' })
    expect(await answers('audio')).toMatch(/^I can't listen to audio\. Type what you need or pick an option from the menu\.\nClub Norte: /)
    expect(await answers('image')).toMatch(/^I can't see images\. .*ask to talk to a person\./)
    expect(await answers('location')).toMatch(
      /^Thanks for the location, but I don't use it: orders are picked up at the club\. Pick it up at Av\. Cabildo 1200, /
    )
    const norte = await t.app.tenants.get('club-norte')
    await t.app.tenants.put({ ...norte!, pickup: undefined })
    try {
      expect(await answers('location')).toMatch(/^Thanks for the location, but I don't use it: orders are picked up at the club\.\nClub Norte: /)
    } finally {
      await t.app.tenants.put(norte!)
    }
    expect(await answers('reaction')).toMatch(/^👍 Got it!/)
  })

  it('input counts: a first order from "hola" once linked in 4 inputs, a repeat order in 3', async () => {
    const phone = await linked()
    const first = ['hola', 'quiero 2 aceite', { reply: 'cart:checkout' }, { reply: 'order:confirm' }] as const
    let last: SendBody[] = []
    for (const input of first) last = await say(phone, input)
    expect(texts(last)).toMatch(/Pedido #\S+ realizado/)

    const repeat = ['hola', 'repetir', { reply: 'order:confirm' }] as const
    const replies: SendBody[][] = []
    for (const input of repeat) replies.push(await say(phone, input))
    expect(texts(replies[1]!)).toMatch(/Pusimos tu último pedido en el carrito/)
    expect(choices(replies[1]!)).toEqual(['order:confirm', 'order:cancel'])
    expect(texts(replies[1]!)).toMatch(/2 × Aceite CBD 10% 30 ml[\s\S]*Retiro en el club/)
    expect(texts(replies[2]!)).toMatch(/Pedido #\S+ realizado \(\$\s?64\.000,00\)/)
    expect({ firstOrder: first.length, repeatOrder: repeat.length }).toEqual({ firstOrder: 4, repeatOrder: 3 })
  })

  // issue: no catalog copy in the session. A page on show is kept as its product ids; once the order is placed,
  // nothing of browsing is left. The figures are printed for docs/performance.md.
  it('a session keeps product ids while browsing and nothing of browsing after an order', async () => {
    const unlinked = newPhone()
    await say(unlinked, 'hola')
    const phone = await linked()
    const page = await say(phone, { reply: 'menu:browse' })
    const browsing = (await savedRecord(t.app, phone)).d
    const product = choices(page).find((id) => id.startsWith('product:'))!
    for (const input of [{ reply: product }, '1', { reply: 'cart:checkout' }, { reply: 'order:confirm' }]) await say(phone, input)
    const ordered = (await savedRecord(t.app, phone)).d
    expect(JSON.parse(ordered)).toMatchObject({ state: 'MAIN_MENU', cart: [], shown: [] })
    expect(JSON.parse(browsing).shown).toContain(product.slice('product:'.length))
    for (const kept of [browsing, ordered]) expect(kept).not.toMatch(/"title"|"price"|"variants"/)
    const usage = async (p: string) => await t.redis!.call('MEMORY', 'USAGE', `${t.redis!.options.keyPrefix ?? ''}${sessionKey(t.app, p)}`)
    console.info(`session doc bytes: idle unlinked ${(await savedRecord(t.app, unlinked)).d.length}, linked browsing ${browsing.length}, ` +
      `linked after an order ${ordered.length}; MEMORY USAGE of the phone's record: unlinked ${String(await usage(unlinked))}, linked after an order ${String(
        await usage(phone)
      )}`)
  })

  it('"repetir" with no past order says so and keeps the menu', async () => {
    const phone = await linked(['club-norte'], 'ana')
    const none = await say(phone, { reply: 'menu:repeat' })
    expect(texts(none)).toMatch(/Todavía no tenés pedidos para repetir/)
    expect(choices(none)).toContain('menu:browse')
  })
})
