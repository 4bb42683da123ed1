import { shardOf } from '../../stores/shards.ts'
import {
  appliedMark, byPhone, DEAD_KEPT, DEDUPE_TTL_SECONDS, LINK_RESULT_TTL_MS, SESSION_TTL_MS, shardOfDeadLetter, SYSTEM_SENT_TTL_MS,
  type AcceptOptions, type ChatStore, type Commit, type Committed, type DeadLetter, type HistorySink, type Lane, type Letter, type Next,
  type ReceiptStore, type SendWork, type SentReply, type Taken, type TurnWork, type Waiting,
} from './port.ts'

/** `tries`: failed attempts at the head (a turn's: and attempts whose worker died); `open`: a turn's attempts not ended. */
interface Queue { items: string[], dueAt: number, owner: string | undefined, tries: number, open: string[] }
interface Phone {
  mailbox: Queue
  outbox: Queue
  session: { version: number, doc: string | undefined, applied: string[], expiresAt: number, lastError: string | undefined }
}

/** The same contract in one process (no REDIS_URL). Nothing here awaits between a check and its write. */
export class MemoryChatStore implements ChatStore {
  private readonly phones = new Map<string, Phone>()
  private readonly seen = new Map<string, number>()
  private readonly dead = new Map<string, DeadLetter>()
  private readonly linkResults = new Map<string, { result: string, until: number }>()
  private readonly inbound = new Map<string, number>()
  private readonly live = new Map<string, number>()

  /** `receipts`: where a delivered reply's receipt starts (the receipts store's own record). */
  constructor (readonly shards: number, private readonly now: () => number = Date.now, private readonly history?: HistorySink,
    private readonly receipts?: ReceiptStore['recordSent']) {}

  private phone (phone: string): Phone {
    let p = this.phones.get(phone)
    if (!p) {
      const queue = (): Queue => ({ items: [], dueAt: 0, owner: undefined, tries: 0, open: [] })
      p = { mailbox: queue(), outbox: queue(), session: { version: 0, doc: undefined, applied: [], expiresAt: Infinity, lastError: undefined } }
      this.phones.set(phone, p)
    }
    if (p.session.expiresAt <= this.now()) Object.assign(p.session, { version: 0, doc: undefined, applied: [], expiresAt: Infinity })
    return p
  }

  private queue (lane: Lane, phone: string): Queue {
    const p = this.phone(phone)
    return lane === 'turn' ? p.mailbox : p.outbox
  }

  private remember (key: string): boolean {
    const until = this.seen.get(key)
    if (until !== undefined && until > this.now()) return false
    this.seen.set(key, this.now() + DEDUPE_TTL_SECONDS * 1000)
    if (this.seen.size > 100_000) for (const [k, u] of this.seen) if (u <= this.now()) this.seen.delete(k)
    return true
  }

  /** Appends; true when nobody is on the queue (it was empty, or due with no lease and no backoff). */
  private push (q: Queue, item: string): boolean {
    const wasEmpty = q.items.length === 0
    if (wasEmpty) Object.assign(q, { dueAt: this.now(), owner: undefined, tries: 0, open: [] })
    q.items.push(item)
    return wasEmpty || q.dueAt <= this.now()
  }

  async accept (letters: Letter[], options: AcceptOptions = {}) {
    let stored = 0
    const due: string[] = []
    for (const [phone, group] of byPhone(letters)) {
      if (options.at !== undefined) this.inbound.set(phone, options.at)
      // the delivery key is remembered per phone, as Redis does (redis.ts)
      if (options.deliveryKey !== undefined && !this.remember(`d:${phone}:${options.deliveryKey}`)) continue
      let told = false
      for (const { id, body } of group) {
        if (!this.remember(`m:${phone}:${id}`)) continue
        stored++
        told = this.push(this.phone(phone).mailbox, body) || told
      }
      if (told) due.push(phone)
    }
    return { stored, due }
  }

  async due (shard: number, limit: Record<Lane, number>) {
    const now = this.now()
    const found: Record<Lane, Waiting[]> = { turn: [], send: [] }
    for (const [phone, p] of this.phones) {
      if (shardOf(phone, this.shards) !== shard) continue
      for (const [lane, q] of [['turn', p.mailbox], ['send', p.outbox]] as const) {
        if (found[lane].length < limit[lane] && q.items.length > 0) found[lane].push({ phone, inMs: Math.max(0, q.dueAt - now) })
      }
    }
    return found
  }

  private take (q: Queue, owner: string, leaseMs: number): Taken<string> {
    if (q.items.length === 0) return { kind: 'empty' }
    const now = this.now()
    if (q.dueAt > now) return { kind: 'busy', inMs: q.dueAt - now }
    Object.assign(q, { dueAt: now + leaseMs, owner })
    return { kind: 'ok', work: q.items[0] as string }
  }

  private turnWork (phone: string, others: string[]): TurnWork {
    const p = this.phone(phone)
    const { version, doc, applied, lastError } = p.session
    return {
      phone, message: p.mailbox.items[0] as string, session: { version, doc, applied: [...applied] }, tries: p.mailbox.tries + 1, lastError, open: others
    }
  }

  async takeTurn (phone: string, owner: string, leaseMs: number): Promise<Taken<TurnWork>> {
    const q = this.phone(phone).mailbox
    const taken = this.take(q, owner, leaseMs)
    if (taken.kind !== 'ok') return taken
    const others = q.open.filter((o) => o !== owner)
    q.open = [...others, owner]
    return { kind: 'ok', work: this.turnWork(phone, others) }
  }

  /** Removes the head the owner holds; the next head stays leased, or the queue is done. */
  private pop (q: Queue, owner: string, head: string, leaseMs: number): 'more' | 'done' | 'lost' {
    // fenced by the owner, not the clock (commit-list.lua)
    if (q.owner !== owner || q.items[0] !== head) return 'lost'
    q.items.shift()
    q.tries = 0
    q.open = []
    if (q.items.length === 0) {
      Object.assign(q, { owner: undefined, dueAt: 0 })
      return 'done'
    }
    q.dueAt = this.now() + leaseMs
    return 'more'
  }

  async commitTurn (phone: string, owner: string, commit: Commit, leaseMs: number): Promise<Committed> {
    const p = this.phone(phone)
    const q = p.mailbox
    if (q.owner !== owner || q.items[0] !== commit.message || p.session.version !== commit.expected) return { kind: 'lost' }
    if (commit.doc !== undefined) {
      Object.assign(p.session, {
        version: commit.expected + 1, doc: commit.doc, applied: commit.applied.map(appliedMark), expiresAt: this.now() + SESSION_TTL_MS
      })
    }
    p.session.lastError = undefined
    if (commit.record) this.recorder().append(phone, commit.record.tenantId, commit.record.messages)
    for (const code of commit.linkCodes ?? []) this.linkResults.delete(`${phone}:${code}`)
    const senderDue = commit.replies.map((reply) => this.push(p.outbox, reply))[0] === true
    const next = this.after(phone, owner, this.pop(q, owner, commit.message, leaseMs))
    if (!senderDue) return next
    // a send lease that ran out in another sender's hands is left to the take, which says whose it was (commit-list.lua)
    if (commit.sender === undefined || (p.outbox.owner !== undefined && p.outbox.owner !== commit.sender)) return { ...next, senderDue }
    const taken = this.take(p.outbox, commit.sender, leaseMs)
    return taken.kind === 'ok' ? { ...next, send: { phone, entry: taken.work, tries: p.outbox.tries } } : next
  }

  private recorder (): HistorySink {
    if (!this.history) throw new Error('this chat store keeps no conversation history')
    return this.history
  }

  /** The lease kept for the next head: its owner's attempt at it opens. */
  private after (phone: string, owner: string, popped: 'more' | 'done' | 'lost'): Next<TurnWork> {
    if (popped !== 'more') return { kind: popped }
    this.phone(phone).mailbox.open = [owner]
    return { kind: 'more', work: this.turnWork(phone, []) }
  }

  private bury (letter: DeadLetter): void {
    this.dead.set(letter.id, letter)
    const over = [...this.dead.values()].filter((l) => shardOfDeadLetter(l.id) === shardOfDeadLetter(letter.id) && l.tenantId === letter.tenantId)
    if (over.length > DEAD_KEPT) this.dead.delete((over[0] as DeadLetter).id)
  }

  async deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number): Promise<Next<TurnWork>> {
    const q = this.phone(phone).mailbox
    const popped = this.pop(q, owner, letter.payload, leaseMs)
    if (popped !== 'lost') {
      this.bury(letter)
      this.phone(phone).session.lastError = undefined
    }
    return this.after(phone, owner, popped)
  }

  async takeSend (phone: string, owner: string, leaseMs: number, spareMs = 0): Promise<Taken<SendWork>> {
    const q = this.phone(phone).outbox
    // an owner still named on a lease that ran out never gave it back (release and an emptied queue clear it)
    const from = q.items.length > 0 && q.dueAt <= this.now() && q.owner !== owner ? q.owner : undefined
    if (spareMs > 0 && from !== undefined) return { kind: 'busy', inMs: spareMs }
    const taken = this.take(q, owner, leaseMs)
    return taken.kind === 'ok' ? { kind: 'ok', work: { phone, entry: taken.work, tries: q.tries, ...(from !== undefined ? { from } : {}) } } : taken
  }

  async sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter): Promise<Next<SendWork>> {
    const q = this.phone(phone).outbox
    const popped = this.pop(q, owner, entry, leaseMs)
    if (popped !== 'lost' && dead) this.bury(dead)
    return popped === 'more' ? { kind: 'more', work: { phone, entry: q.items[0] as string, tries: 0 } } : { kind: popped }
  }

  async delivered (phone: string, owner: string, entry: string, leaseMs: number, receipt?: SentReply): Promise<Next<SendWork>> {
    if (receipt && !this.receipts) throw new Error('this chat store keeps no receipts')
    const next = this.popDelivered(phone, owner, entry, leaseMs)
    if (receipt) await this.receipts?.(receipt)
    return next
  }

  private popDelivered (phone: string, owner: string, entry: string, leaseMs: number): Next<SendWork> {
    const q = this.phone(phone).outbox
    if (q.items[0] !== entry) return { kind: 'lost' }
    q.items.shift()
    q.tries = 0
    if (q.owner !== owner && q.dueAt > this.now()) return { kind: 'lost' }
    if (q.items.length === 0) {
      Object.assign(q, { owner: undefined, dueAt: 0 })
      return { kind: 'done' }
    }
    Object.assign(q, { owner, dueAt: this.now() + leaseMs })
    return { kind: 'more', work: { phone, entry: q.items[0] as string, tries: 0 } }
  }

  async release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string) {
    const q = this.queue(lane, phone)
    if (q.owner !== owner || q.items.length === 0) return
    Object.assign(q, { owner: undefined, dueAt: this.now() + delayMs })
    if (failed) q.tries++
    if (lane === 'turn') {
      q.open = q.open.filter((o) => o !== owner)
      if (error !== undefined) this.phone(phone).session.lastError = error
    }
  }

  async endAttempts (phone: string, message: string, owners: string[], counted: boolean) {
    const q = this.phone(phone).mailbox
    if (q.items[0] !== message) return 0
    for (const owner of owners) {
      if (!q.open.includes(owner)) continue
      q.open = q.open.filter((o) => o !== owner)
      if (counted) q.tries++
    }
    return q.tries
  }

  async gone (owners: string[]) {
    return owners.filter((o) => (this.live.get(o) ?? 0) <= this.now())
  }

  async spare (phone: string, owner: string, holder: string) {
    const q = this.phone(phone).outbox
    if (q.owner !== owner || q.items.length === 0) return false
    Object.assign(q, { owner: holder, dueAt: this.now() })
    return true
  }

  async renew (lane: Lane, phone: string, owner: string, leaseMs: number) {
    const q = this.queue(lane, phone)
    // fenced by the owner, not the clock (renew-2.lua)
    if (q.owner !== owner || q.items.length === 0) return false
    q.dueAt = this.now() + leaseMs
    return true
  }

  async pending (phone: string) {
    const p = this.phones.get(phone)
    return p !== undefined && (p.mailbox.items.length > 0 || p.outbox.items.length > 0)
  }

  async outboxPhones () { return [...this.phones.values()].filter((p) => p.outbox.items.length > 0).length }

  async deadLetters (tenantId: string, limit: number) {
    return [...this.dead.values()].filter((l) => l.tenantId === tenantId).sort((a, b) => b.at - a.at).slice(0, limit)
  }

  async deadLetter (id: string) { return this.dead.get(id) }

  async redrive (id: string) {
    const letter = this.dead.get(id)
    if (!letter) return undefined
    this.dead.delete(id)
    this.push(this.queue(letter.lane, letter.phone), letter.payload)
    return letter
  }

  async enqueue (phone: string, entries: string[]) {
    for (const entry of entries) this.push(this.phone(phone).outbox, entry)
  }

  async enqueueSystem (phone: string, id: string, entry: string) {
    const key = `s:${phone}:${id}`
    const until = this.seen.get(key)
    if (until !== undefined && until > this.now()) return false
    this.seen.set(key, this.now() + SYSTEM_SENT_TTL_MS)
    this.push(this.phone(phone).outbox, entry)
    return true
  }

  async lastInbound (phone: string) { return this.inbound.get(phone) }

  async linkResult (phone: string, code: string) {
    const hit = this.linkResults.get(`${phone}:${code}`)
    return hit && hit.until > this.now() ? hit.result : undefined
  }

  async putLinkResult (phone: string, code: string, result: string) {
    this.linkResults.set(`${phone}:${code}`, { result, until: this.now() + LINK_RESULT_TTL_MS })
  }

  async heartbeat (owner: string, ttlMs: number) {
    // heartbeat-1.lua: reported, kept with its time negated and reported once more if still silent then
    const gone = [...this.live].filter(([o, until]) => o !== owner && Math.abs(until) <= this.now())
    for (const [o, until] of gone) {
      if (until >= 0) this.live.set(o, -(this.now() + ttlMs))
      else this.live.delete(o)
    }
    const others = [...this.live].filter(([o, until]) => o !== owner && until > this.now()).length
    this.live.set(owner, this.now() + ttlMs)
    return { gone: gone.map(([o]) => o), others }
  }

  async leave (owner: string) { this.live.set(owner, 0) }
}
