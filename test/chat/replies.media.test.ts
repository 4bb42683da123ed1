import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { outboundMessage } from '../../src/chat/outbound/messages.ts'
import { MEDIA_KINDS } from '../../src/chat/provider/media.ts'
import { compose } from '../../src/chat/replies/compose.ts'
import { COPY } from '../../src/chat/replies/copy.ts'

// The answer to each kind of message that is not text (voice note without transcript, image, location, ...), in
// each language: one text within the provider's limits, its kind's own words, never empty, never the same as another's.

const kind = fc.constantFrom(...MEDIA_KINDS)
const locale = fc.constantFrom('es' as const, 'en' as const)
const pickup = fc.option(fc.record({ address: fc.string({ minLength: 1, maxLength: 80 }), hours: fc.string({ minLength: 1, maxLength: 40 }) }), {
  nil: undefined
})

const answer = (media: string, voice: Parameters<typeof compose>[1]) => {
  const messages = compose({ id: 'unsupported', media }, voice)
  expect(messages).toHaveLength(1)
  const [message] = messages
  expect(outboundMessage.safeParse(message).success).toBe(true)
  if (message?.type !== 'text') throw new Error(`expected a text, got ${message?.type}`)
  return message.text.body
}

describe('media answers', () => {
  it('each kind in each language: one valid text, its own words; a location adds the club\'s pickup when known', () => {
    fc.assert(fc.property(kind, locale, pickup, (media, lang, where) => {
      const copy = COPY[lang]
      const body = answer(media, { locale: lang, currency: 'ARS', pickup: where })
      expect(body.trim()).not.toBe('')
      if (media === 'location' && where) expect(body).toBe(`${copy.media.location} ${copy.pickupAt(where.address, where.hours)}`)
      else expect(body).toBe(copy.media[media])
    }))
  })

  it('kinds and languages never share an answer; images, videos and documents point to a person', () => {
    fc.assert(fc.property(kind, kind, locale, locale, (a, b, la, lb) => {
      fc.pre(a !== b || la !== lb)
      expect(COPY[la].media[a]).not.toBe(COPY[lb].media[b])
    }))
    for (const lang of ['es', 'en'] as const) {
      for (const media of ['image', 'video', 'document'] as const) {
        expect(COPY[lang].media[media].toLowerCase()).toContain(
          COPY[lang].menuItems.person.toLowerCase()
        )
      }
    }
    expect(COPY.es.media.audio).toMatch(/No puedo escuchar audios/)
    expect(COPY.en.media.audio).toMatch(/can't listen to audio/)
  })

  it('a kind the provider adds later answers like "other", in its language', () => {
    const known: ReadonlySet<string> = new Set(MEDIA_KINDS)
    fc.assert(fc.property(fc.string().filter((s) => !known.has(s)), locale, pickup, (media, lang, where) => {
      expect(answer(media, { locale: lang, currency: 'ARS', pickup: where })).toBe(COPY[lang].media.other)
    }))
  })
})
