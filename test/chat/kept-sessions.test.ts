import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeSession, freshSession, restoreSession, stepConversation } from '../../machines/conversation.session.ts'
import type { AccountRef } from '../../machines/conversation.types.ts'
import { KeptSessions } from '../../src/chat/runtime.ts'
import { sessionFields, type SessionFields } from '../../src/chat/session-fields.ts'
import { eventsAt, NORTE } from '../machines/conversation.fixtures.ts'

// The snapshots a runtime keeps between a phone's turns: used only for the very document the phone's last turn
// here saved; any other document is restored from itself (and its fields read from itself).

/** The fields SessionFields declares (the parsed document holds the rest too). */
const declared = ({ tenantId, state, options, accounts }: SessionFields): SessionFields => ({ tenantId, state, options, accounts })
const linked = (phone: string, at: number) => stepConversation(freshSession(phone, at), { type: 'LINKED', at, accounts: [NORTE] })[0]

describe('kept sessions', () => {
  it('resumes from the kept snapshot only when the document is the one it was saved as', () => {
    const kept = new KeptSessions()
    const snapshot = linked('p1', 1_000)
    const doc = encodeSession(snapshot)
    kept.keep('p1', doc, snapshot)
    expect(kept.restore(doc, 'p1', 2_000)).toEqual({ snapshot, migrated: false })
    expect(kept.restore(doc, 'p1', 2_000).snapshot).toBe(snapshot)
    // another instance's turn saved another document: it is restored from itself
    const elsewhere = encodeSession(linked('p1', 5_000))
    const restored = kept.restore(elsewhere, 'p1', 6_000)
    expect(restored.snapshot).not.toBe(snapshot)
    expect(restored).toEqual(restoreSession(elsewhere, 'p1', 6_000))
    expect(restored.snapshot.context.lastActivity).toBe(5_000)
    // a session that expired (no document) starts afresh; another phone's document is not this phone's
    expect(kept.restore(undefined, 'p1', 7_000).snapshot.value).toBe('UNLINKED')
    expect(kept.restore(doc, 'p2', 2_000).snapshot).not.toBe(snapshot)
  })

  it('keeps at most its limit, dropping the phone kept least recently', () => {
    const kept = new KeptSessions(2)
    const snapshots = ['p1', 'p2', 'p3'].map((phone, i) => ({ phone, snapshot: linked(phone, 1_000 + i) }))
    const [one, two, three] = snapshots.map((s) => ({ ...s, doc: encodeSession(s.snapshot) }))
    kept.keep(one!.phone, one!.doc, one!.snapshot)
    kept.keep(two!.phone, two!.doc, two!.snapshot)
    kept.keep(one!.phone, one!.doc, one!.snapshot)
    kept.keep(three!.phone, three!.doc, three!.snapshot)
    expect(kept.restore(one!.doc, one!.phone, 0).snapshot).toBe(one!.snapshot)
    expect(kept.restore(three!.doc, three!.phone, 0).snapshot).toBe(three!.snapshot)
    const dropped = kept.restore(two!.doc, two!.phone, 0)
    expect(dropped.snapshot).not.toBe(two!.snapshot)
    expect(dropped.snapshot.context).toEqual(JSON.parse(JSON.stringify(two!.snapshot.context)))
  })

  it('answers the handoff gate the fields its document holds, whatever the conversation (kept or not)', () => {
    fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 30 }), fc.constantFrom<AccountRef[]>([], [NORTE]), (picks, accounts) => {
      const kept = new KeptSessions()
      let snapshot = freshSession('p1', 1_000)
      for (const pick of picks) {
        const events = eventsAt(snapshot.context.lastActivity + 1, accounts, snapshot.context.selectedVariantId)
        snapshot = stepConversation(snapshot, events[pick % events.length]!)[0]
        const doc = encodeSession(snapshot)
        expect(declared(kept.fields('p1', doc))).toEqual(declared(sessionFields(doc)))
        kept.keep('p1', doc, snapshot)
        expect(kept.fields('p1', doc)).toEqual(declared(sessionFields(doc)))
        expect(kept.fields('p1', doc).options).toBe(snapshot.context.options)
      }
    }), { numRuns: 100 })
    expect(new KeptSessions().fields('p1', undefined)).toEqual({})
  })
})
