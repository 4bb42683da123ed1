import { defineScript, type Script, type ScriptArg } from '../../stores/define-script.ts'
import { loadLua } from '../../stores/lua.ts'
import { encodeHistory } from '../inbox/history-codec.ts'
import { unpackSession } from '../session-codec.ts'
import {
  appliedMark, type Beat, type DeadLetter, type HistoryMessage, type InboxLimits, type Lane, type Next, type Recorded, type Taken, type Waiting
} from './port.ts'

// The chat's Redis scripts, one Lua file each in scripts/ (its keys, arguments and reply in its header; shared Lua in
// scripts/includes/), declared here with the decode of its reply and the formats of what it is sent. A file's name
// says its key count (`take-4.lua`: 4 keys; `commit-list.lua`: a list of keys), and the script's name follows it
// (`chatTake`). Every script touches the keys of one phone and of its shard only, all under the shard's hash tag,
// or one conversation's (the inbox store's record and handoff flag, same tag).

const DIR = new URL('./scripts/', import.meta.url)

/** Declares scripts/<file>.lua with its reply's decode. */
function chatScript<Args extends readonly ScriptArg[], Result> (file: string, decode: (raw: unknown) => Result): Script<Args, Result> {
  const m = /^([a-z-]+)-(\d+|list)$/.exec(file)
  if (!m) throw new Error(`a chat script's file is named <name>-<key count>.lua, not ${file}.lua`)
  const words = (m[1] as string).split('-').map((w) => (w[0] as string).toUpperCase() + w.slice(1))
  return defineScript<Args, Result>({ name: `chat${words.join('')}`, keys: m[2] === 'list' ? 'list' : Number(m[2]), lua: loadLua(DIR, file), decode })
}

/** A script's reply: a kind, then its fields (strings, or Redis nil). */
type Reply = Array<string | number | null>

const str = (v: unknown): string => v === null || v === undefined ? '' : String(v)
const reply = (raw: unknown): Reply => Array.isArray(raw) ? raw as Reply : []

// Applied marks as the phone's record keeps them (phone-record.lua): '+' and the packed marks (8 base64url
// characters each), or '-' and the first version's ids, one per line.
const APPLIED_SEPARATOR = '\n'
const PACKED_MARKS = '+'
const FIRST_VERSION_IDS = '-'
const MARK_CHARS = 8

/** The applied ids as a commit sends them: their marks, packed. */
export const packMarks = (applied: readonly string[]): string => applied.map((id) => Buffer.from(appliedMark(id), 'hex').toString('base64url')).join('')

function appliedOf (stored: string): string[] {
  if (stored.startsWith(FIRST_VERSION_IDS)) {
    const ids = stored.slice(FIRST_VERSION_IDS.length)
    return ids ? ids.split(APPLIED_SEPARATOR) : []
  }
  if (!stored.startsWith(PACKED_MARKS)) return []
  const marks: string[] = []
  for (let i = PACKED_MARKS.length; i < stored.length; i += MARK_CHARS) marks.push(Buffer.from(stored.slice(i, i + MARK_CHARS), 'base64url').toString('hex'))
  return marks
}

/** The envelope of a phone's record (the part before the session document). */
export const envelopeOf = (record: string): { v?: number, i?: string } => JSON.parse(record.slice(0, record.indexOf('\n')))

/**
 * A lane's head as take, commit and pop answer it (the Redis store adds the phone): the entry, the tries at it and,
 * for a turn, the session it runs against and the last error.
 */
export interface Head {
  entry: string
  tries: number
  session?: { version: number, doc: string | undefined, applied: string[] }
  lastError?: string
  /** A turn's: the other owners with attempts open at it. */
  open?: string[]
  /** A send's: the owner whose run-out lease the take took over. */
  from?: string
}

/** The work fields of a reply (next-head.lua's layout, from its fifth field): a turn's has eleven fields, a send's six. */
function headOf (r: Reply): Head {
  if (r.length <= 7) return { entry: str(r[4]), tries: Number(r[5] ?? 0), ...(str(r[6]) ? { from: str(r[6]) } : {}) }
  const [, , , , entry, v, doc, applied, tries, err, open] = r.map(str)
  const session = { version: Number(v || 0), doc: doc ? unpackSession(doc) : undefined, applied: appliedOf(applied ?? '') }
  return { entry: entry as string, tries: Number(tries || 1), session, lastError: err || undefined, open: open ? open.split('\n') : [] }
}

/** After a commit or pop: the lane's next head, and where a commit's replies went (senderDue: a sender must be told). */
export type HeadNext = Next<Head> & { senderDue?: boolean, send?: Pick<Head, 'entry' | 'tries'> }

function headNext (raw: unknown): HeadNext {
  const r = reply(raw)
  const next: Next<Head> = r[0] === 'more' ? { kind: 'more', work: headOf(r) } : { kind: r[0] === 'done' ? 'done' : 'lost' }
  if (r[1] === 'leased') return { ...next, send: { entry: str(r[2]), tries: Number(r[3]) } }
  return Number(r[1]) === 1 ? { ...next, senderDue: true } : next
}

function waiting (raw: unknown): Waiting[] {
  const r = reply(raw)
  const found: Waiting[] = []
  for (let i = 0; i < r.length; i += 2) found.push({ phone: str(r[i]), inMs: Number(r[i + 1]) })
  return found
}

const isOne = (raw: unknown): boolean => raw === 1

/** The history record's arguments (history.lua), in order. */
export function historyArgs ({ tenantId, messages }: Recorded, limits: InboxLimits): [Buffer, string, string, string, string, string, string] {
  const last = messages.at(-1) as HistoryMessage
  const inbound = messages.filter((m) => m.direction === 'in')
  return [
    encodeHistory(messages), tenantId, String(last.at), String(inbound.at(-1)?.at ?? ''), String(inbound.length), String(limits.historyMax),
    String(limits.historyMs)
  ]
}

export const accept = chatScript<[phone: string, dedupeSeconds: number, at: string, deliveryKey: string, ...idsAndBodies: string[]], {
  stored: number, due: boolean
}>(
  'accept-4', (raw) => { const r = reply(raw); return { stored: Number(r[0] ?? 0), due: r[1] === 1 } })

export const due = chatScript<[turnLimit: number, sendLimit: number], Record<Lane, Waiting[]>>(
  'due-2', (raw) => { const r = reply(raw); return { turn: waiting(r[0]), send: waiting(r[1]) } })

export const take = chatScript<[phone: string, owner: string, leaseMs: number, lane: Lane, spareMs: number], Taken<Head>>('take-4', (raw) => {
  const r = reply(raw)
  if (r[0] === 'ok') return { kind: 'ok', work: headOf(r) }
  if (r[0] === 'busy') return { kind: 'busy', inMs: Number(r[1]) }
  return { kind: 'empty' }
})

export const commit = chatScript<[phone: string, owner: string, expected: number, doc: string, applied: string, message: string, leaseMs: number,
  ttlMs: number, sender: string, count: number, ...rest: ScriptArg[]], HeadNext>('commit-list', headNext)

export const pop = chatScript<[phone: string, owner: string, head: string, leaseMs: number, lane: Lane, deadId: string, deadRecord: string, deadKept: number],
  Next<Head>>('pop-6', headNext)

export const delivered = chatScript<[
  phone: string, owner: string, entry: string, leaseMs: number, messageId: string, replyId: string, receipt: string, receiptTtlMs: number
],
  Next<Head>>('delivered-6', headNext)

export const release = chatScript<[phone: string, owner: string, delayMs: number, lane: Lane, failed: string, hasError: string, error: string], boolean>(
  'release-3', isOne)

export const attempts = chatScript<[head: string, counted: '1' | '0', ...owners: string[]], number>('attempts-2', (raw) => Number(raw))

export const gone = chatScript<string[], string[]>('gone-1', (raw) => reply(raw).map(str))

export const spare = chatScript<[phone: string, owner: string, holder: string], boolean>('spare-2', isOne)

export const renew = chatScript<[phone: string, owner: string, leaseMs: number], boolean>('renew-2', isOne)

export const redrive = chatScript<[id: string, phone: string], DeadLetter | undefined>(
  'redrive-5', (raw) => typeof raw === 'string' ? JSON.parse(raw) as DeadLetter : undefined)

export const enqueue = chatScript<[phone: string, ...entries: string[]], boolean>('enqueue-2', isOne)

export const enqueueSystem = chatScript<[phone: string, entry: string, ttlMs: number], boolean>('enqueue-system-3', isOne)

export const heartbeat = chatScript<[owner: string, ttlMs: number], Beat>('heartbeat-1', (raw) => {
  const [others, gone] = reply(raw)
  return { others: Number(others), gone: reply(gone).map(str) }
})

export const record = chatScript<ReturnType<typeof historyArgs>, undefined>('record-2', () => undefined)

export const handoffCas = chatScript<[expected: string, next: string, phone: string, deadline: string], boolean>('handoff-cas-2', isOne)

export const moveConversation = chatScript<[tenantId: string, phone: string, keepHistory: '1' | '0', historyMax: number], boolean>('move-conversation-5', isOne)

export const indexDead = chatScript<[tenantId: string, kept: number, ...ids: string[]], number>('index-dead-3', (raw) => Number(raw))
