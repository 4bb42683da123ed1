import { describe, expect, it } from 'vitest'
import { encodeSession, freshSession, restoreSession, stepConversation } from '../../machines/conversation.session.ts'
import { KeptSessions } from '../../src/chat/runtime.ts'
import { NORTE } from '../machines/conversation.fixtures.ts'

// The snapshots a runtime keeps between a phone's turns: used only for the very document the phone's last turn
// here saved; any other document is restored from itself.

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
})
