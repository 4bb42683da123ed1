import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, ok, session, stream } from '../api.ts'
import type { components } from '../api.gen.ts'
import { locale, strings, type Strings } from '../i18n.ts'

type Conversation = components['schemas']['ChatConversation']
type Message = components['schemas']['ChatHistoryMessage']

/** Waiting for a person first (longest wait on top), then the latest activity first. */
function inboxOrder (list: Conversation[]): Conversation[] {
  const waitingSince = (c: Conversation) => c.needsPerson && c.handoff ? Date.parse(c.handoff.since) : Infinity
  return [...list].sort((a, b) => waitingSince(a) - waitingSince(b) || Date.parse(b.lastActivityAt) - Date.parse(a.lastActivityAt))
}

function author (t: Strings, a: string): string {
  if (a === 'member') return t.authorMember
  if (a === 'bot') return t.authorBot
  if (a === 'system') return t.authorSystem
  return t.authorStaff
}

/** Who holds the conversation, when the refusal is a 409 because someone else took it. */
const heldBy = (err: ApiError): string | undefined =>
  err.status === 409 ? (err.body as { error?: { details?: { heldBy?: string } } } | undefined)?.error?.details?.heldBy : undefined

/** A phone with its plus; a member without one is named by the business-scoped user id, shown as it is. */
const addressShown = (address: string) => /^\d+$/.test(address) ? `+${address}` : address

const minutes = (since: string, now: number) => Math.max(0, Math.floor((now - Date.parse(since)) / 60_000))

export function Inbox () {
  const t = strings(locale.value)
  const [list, setList] = useState<Conversation[] | null>(null)
  const [phone, setPhone] = useState<string | null>(null)
  const [messages, setMessages] = useState<Message[]>([])
  const [draft, setDraft] = useState('')
  const [notice, setNotice] = useState('')
  const [now, setNow] = useState(Date.now())
  const [names, setNames] = useState<Record<string, string>>({})
  const selected = useRef<string | null>(null)
  selected.current = phone

  const loadList = async () => {
    setList(ok(await api.GET('/api/chat/conversations', { params: { query: { limit: 100, offset: 0 } } })).conversations)
  }
  const loadMessages = async (p: string) => {
    const r = ok(await api.GET('/api/chat/conversations/{phone}/messages', { params: { path: { phone: p }, query: { limit: 50, offset: 0 } } }))
    if (selected.current === p) setMessages([...r.messages].reverse())
  }

  useEffect(() => {
    loadList().catch(() => {})
    // who holds a conversation, by name: the staff list is the admins' to read; others see the user id
    if (session.value?.role === 'admin') {
      api.GET('/api/staff').then((r) => setNames(Object.fromEntries(ok(r).staff.map((m) => [m.id, m.name])))).catch(() => {})
    }
    const abort = new AbortController()
    stream('/api/chat/conversations/stream', (_event, data) => {
      const p = (data as { phone?: string }).phone
      loadList().catch(() => {})
      if (p && p === selected.current) loadMessages(p).catch(() => {})
    }, abort.signal).catch(() => {})
    const tick = setInterval(() => setNow(Date.now()), 30_000)
    return () => { abort.abort(); clearInterval(tick) }
  }, [])

  const open = (p: string) => {
    setPhone(p)
    setNotice('')
    setMessages([])
    selected.current = p
    loadMessages(p).then(loadList).catch(() => {})
  }

  const act = async (what: () => Promise<unknown>) => {
    setNotice('')
    try {
      await what()
      await loadList()
      if (phone) await loadMessages(phone)
      return true
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) {
        const other = heldBy(err)
        setNotice(other ? t.takenByOther(names[other] ?? other) : t.conflict(err.message))
      }
      return false
    }
  }

  const current = list?.find((c) => c.phone === phone)
  const me = session.value?.sub
  const holder = current?.handoff?.status === 'taken' ? current.handoff.by : undefined
  const path = { params: { path: { phone: phone ?? '' } } }
  const takeOver = () => act(async () => ok(await api.POST('/api/chat/conversations/{phone}/takeover', { ...path, body: {} })))
  const handBack = () => act(async () => ok(await api.POST('/api/chat/conversations/{phone}/handback', { ...path, body: {} })))

  return (
    <div class='split'>
      <section aria-labelledby='conv-title' class='list'>
        <h1 id='conv-title'>{t.conversations}</h1>
        {list === null && <p>{t.loading}</p>}
        {list?.length === 0 && <p>{t.none}</p>}
        <ul>
          {inboxOrder(list ?? []).map((c) => (
            <li key={c.phone}>
              <button
                type='button' class={c.phone === phone ? 'item current' : 'item'}
                aria-current={c.phone === phone ? 'true' : undefined} onClick={() => open(c.phone)}
              >
                <strong>{addressShown(c.phone)}</strong>
                {c.needsPerson && c.handoff && <span class='badge wait'>{t.waiting(minutes(c.handoff.since, now))}</span>}
                {c.unread > 0 && <span class='badge'>{t.unread(c.unread)}</span>}
                <span class='preview'>{c.lastMessage?.text ?? ''}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby='transcript-title' class='detail'>
        <h2 id='transcript-title'>{phone ? `${t.transcript} ${addressShown(phone)}` : t.transcript}</h2>
        {!phone && <p>{t.pickConversation}</p>}
        {phone && (
          <>
            <p class='holder'>
              {holder === undefined ? (current?.needsPerson ? t.requested : t.botHolds) : holder === me ? t.heldByYou : t.heldBy(names[holder] ?? holder)}
            </p>
            <div class='actions'>
              <button type='button' onClick={takeOver}>{t.takeOver}</button>
              <button type='button' onClick={handBack}>{t.handBack}</button>
            </div>
            {notice && <p role='alert' class='error'>{notice}</p>}
            <ol class='transcript' aria-live='polite' aria-labelledby='transcript-title' tabIndex={0}>
              {messages.map((m) => (
                <li key={m.id} class={m.direction === 'in' ? 'in' : 'out'}>
                  <span class='who'>{author(t, m.author)}</span> <time dateTime={m.at}>{new Date(m.at).toLocaleTimeString(locale.value)}</time>
                  <p>{m.text}</p>
                  {m.delivery && (
                    <span class={m.delivery.status === 'failed' ? 'delivery error' : 'delivery'}>
                      {t.delivery[m.delivery.status]}{m.delivery.failure ? `: ${m.delivery.failure.reason}` : ''}
                    </span>
                  )}
                </li>
              ))}
            </ol>
            <form
              class='reply' onSubmit={async (e) => {
                e.preventDefault()
                const sent = await act(async () => ok(await api.POST('/api/chat/conversations/{phone}/messages', { ...path, body: { text: draft } })))
                if (sent) setDraft('')
              }}
            >
              <label for='reply'>{t.reply}</label>
              <textarea id='reply' value={draft} onInput={(e) => setDraft((e.currentTarget as HTMLTextAreaElement).value)} rows={3} required />
              <button type='submit'>{t.send}</button>
            </form>
          </>
        )}
      </section>
    </div>
  )
}
