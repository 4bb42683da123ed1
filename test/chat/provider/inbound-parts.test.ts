import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { authorOf, isAddress, recipientOf } from '../../../src/chat/provider/identity.ts'
import { mediaContent } from '../../../src/chat/provider/media.ts'
import { epochMsOf, readStatusEvent } from '../../../src/chat/provider/status-events.ts'

// The provider's status events, voice notes and other media, and authors without a phone number.

const NOW = 1_800_000_000_000

describe('status events', () => {
  it('reads the status, the time and the errors of each of the four events', () => {
    const body = {
      message: { id: 'wamid.9', status: 'failed', timestamp: '1700000000', errors: [{ code: 131047, title: 'Re-engagement message' }] }, phone_number_id: '1'
    }
    expect(readStatusEvent(body, 'chat.message.failed', NOW)).toEqual([{
      messageId: 'wamid.9', status: 'failed', at: 1_700_000_000_000, errors: [{ code: 131047, title: 'Re-engagement message' }]
    }])
    for (const status of ['sent', 'delivered', 'read'] as const) {
      expect(readStatusEvent({ message: { id: 'w', timestamp: 1_700_000_000 } }, `chat.message.${status}`, NOW)).toEqual([{
        messageId: 'w', status, at: 1_700_000_000_000, errors: []
      }])
    }
  })

  it('reads the v2 extension object: its status, and the raw history (other ids and unknown statuses left out)', () => {
    const body = {
      message: {
        id: 'wamid.5',
        kapso: {
          direction: 'outbound',
          status: 'read',
          statuses: [
            { id: 'wamid.5', status: 'delivered', timestamp: '1700000005', recipient_id: '5491100000001' },
            { id: 'wamid.5', status: 'failed', timestamp: '1700000003', errors: [{ code: '131026', title: 'Message undeliverable' }] },
            { id: 'wamid.other', status: 'read', timestamp: '1700000009' },
            { id: 'wamid.5', status: 'deleted', timestamp: '1700000010' },
          ],
        },
      },
    }
    expect(readStatusEvent(body, undefined, NOW)).toEqual([
      { messageId: 'wamid.5', status: 'read', at: NOW, errors: [] },
      { messageId: 'wamid.5', status: 'delivered', at: 1_700_000_005_000, errors: [] },
      { messageId: 'wamid.5', status: 'failed', at: 1_700_000_003_000, errors: [{ code: 131026, title: 'Message undeliverable' }] },
    ])
  })

  it('is not a status event: another event name, an inbound message, a message without a status', () => {
    expect(readStatusEvent({ message: { id: 'w', status: 'read' } }, 'chat.message.received', NOW)).toBeUndefined()
    expect(readStatusEvent({ message: { id: 'w', kapso: { direction: 'inbound', status: 'read' } } }, undefined, NOW)).toBeUndefined()
    expect(readStatusEvent({ message: { id: 'w', type: 'text', text: { body: 'hola' } } }, undefined, NOW)).toBeUndefined()
    expect(readStatusEvent({ message: { status: 'read' } }, 'chat.message.read', NOW)).toBeUndefined()
  })

  it('never throws on any body, and what it reads has a known status and a time', () => {
    const messageish = fc.record(
      {
        id: fc.oneof(fc.string(), fc.integer()),
        status: fc.string(),
        timestamp: fc.oneof(fc.string(), fc.integer(), fc.double()),
        errors: fc.anything(),
        kapso: fc.anything()
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ message: messageish })),
        fc.option(fc.constantFrom('chat.message.read', 'chat.message.failed', 'x'), { nil: undefined }),
        (body, event) => {
          const updates = readStatusEvent(body, event, NOW)
          for (const u of updates ?? []) {
            expect(['sent', 'delivered', 'read', 'failed']).toContain(u.status)
            expect(Number.isFinite(u.at)).toBe(true)
          }
        }
      )
    )
  })

  it('takes Unix seconds, milliseconds and ISO dates as times', () => {
    expect(epochMsOf('1700000000')).toBe(1_700_000_000_000)
    expect(epochMsOf(1_700_000_000_123)).toBe(1_700_000_000_123)
    expect(epochMsOf('2025-01-01T00:00:00Z')).toBe(Date.UTC(2025, 0, 1))
    expect(epochMsOf('soon')).toBeUndefined()
    expect(epochMsOf(-1)).toBeUndefined()
  })
})

describe('authors', () => {
  const bsuid = fc.tuple(fc.constantFrom('AR', 'UY', 'DE', 'ES'), fc.boolean(), fc.stringMatching(/^[A-Za-z0-9]{1,40}$/)).map(([cc, ent, rest]) =>
    `${cc}.${ent ? 'ENT.' : ''}${rest}`)
  const phone = fc.stringMatching(/^[1-9]\d{7,13}$/)

  it('is keyed by the phone when there is one, else by the business-scoped user id; never by the username', () => {
    fc.assert(
      fc.property(
        fc.option(phone, { nil: undefined }), fc.option(bsuid, { nil: undefined }), fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
        (p, id, username) => {
          const author = authorOf({ from: p, userId: id, username })
          if (p === undefined && id === undefined) {
            expect(author).toBeUndefined()
            return
          }
          expect(author?.address).toBe(p ?? id)
          expect(isAddress(author?.address ?? '')).toBe(true)
          expect(recipientOf(author?.address ?? '')).toEqual(p ? { to: p } : { recipient: id })
        }
      )
    )
  })

  it('falls back to the conversation\'s phone, drops a plus, and refuses what is neither', () => {
    expect(authorOf({ phoneNumber: '+5491100000001' })).toEqual({ address: '5491100000001', phone: '5491100000001' })
    expect(authorOf({ userId: 'AR.1502576394655843', username: '@ana' })).toEqual({
      address: 'AR.1502576394655843', userId: 'AR.1502576394655843', username: '@ana'
    })
    expect(authorOf({ userId: 'ar.1502576394655843', username: '@ana' })).toBeUndefined()
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (from, userId, username) => { expect(() => authorOf({ from, userId, username })).not.toThrow() })
    )
  })
})

describe('media', () => {
  it('a voice note with a transcript is what the member said; without one, audio', () => {
    expect(mediaContent({ type: 'audio', audio: { id: 'a', voice: true }, kapso: { transcript: { text: ' quiero ver el menú ' } } })).toEqual({
      kind: 'voice', text: 'quiero ver el menú'
    })
    expect(mediaContent({ type: 'audio', kapso: { transcript: { text: '   ' } } })).toEqual({ kind: 'media', media: 'audio' })
    expect(mediaContent({ type: 'audio' })).toEqual({ kind: 'media', media: 'audio' })
    expect(mediaContent({ type: 'voice', kapso: { transcript: 'hola' } })).toEqual({ kind: 'voice', text: 'hola' })
  })

  it('names each other kind, and anything unknown as other', () => {
    for (const type of ['image', 'video', 'document', 'location', 'sticker', 'reaction', 'contacts'] as const) {
      expect(mediaContent({ type })).toEqual({ kind: 'media', media: type })
    }
    fc.assert(fc.property(fc.string(), fc.anything(), (type, kapso) => {
      const content = mediaContent({ type, kapso })
      if (content.kind === 'voice') expect(content.text.trim()).toBe(content.text)
    }))
    expect(mediaContent({ type: 'unknown_new_type' })).toEqual({ kind: 'media', media: 'other' })
  })
})
