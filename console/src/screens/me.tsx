import { create } from 'qrcode'
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, ok, session, tenant } from '../api.ts'
import type { components, paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'
import { money } from './orders.tsx'
import { StandingView } from './standing.tsx'

type Summary = paths['/api/orders']['get']['responses']['200']['content']['application/json']['orders'][number]
type Notification = components['schemas']['Notification']
type Quota = components['schemas']['MemberQuota']
type Standing = components['schemas']['MemberStanding']

/** The link that opens the club's chat with `text` typed (the number picked by the member when none is set). */
const chatLink = (number: string | null, text: string) => `https://wa.me/${number ?? ''}?text=${encodeURIComponent(text)}`

function Qr ({ text, label }: { text: string, label: string }) {
  const { size, data } = create(text, { errorCorrectionLevel: 'M' }).modules
  let d = ''
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (data[y * size + x]) d += `M${x + 4} ${y + 4}h1v1h-1z`
  return (
    <svg class='qr' role='img' aria-label={label} viewBox={`0 0 ${size + 8} ${size + 8}`} width='240' height='240'>
      <rect width='100%' height='100%' fill='#fff' />
      <path d={d} fill='#000' />
    </svg>
  )
}

export function Me ({ chatNumber }: { chatNumber: string | null }) {
  const t = strings(locale.value)
  const s = session.value
  const [orders, setOrders] = useState<Summary[] | null>(null)
  const [notes, setNotes] = useState<Notification[] | null>(null)
  const [code, setCode] = useState<string | null>(null)
  const [notice, setNotice] = useState('')
  const [quota, setQuota] = useState<Quota | null>(null)
  const [standing, setStanding] = useState<Standing | null>(null)

  useEffect(() => {
    api.GET('/api/orders', { params: { query: { limit: 20, offset: 0 } } }).then((r) => setOrders(ok(r).orders)).catch(() => setOrders([]))
    api.GET('/api/members/me/quota').then((r) => setQuota(ok(r).quota)).catch(() => {})
    api.GET('/api/members/me/standing').then((r) => setStanding(ok(r).standing)).catch(() => {})
    api.GET('/api/notifications', { params: { query: { page: 1, limit: 20 } } }).then((r) => setNotes(ok(r).notifications)).catch(() => setNotes([]))
  }, [])

  async function makeCode (): Promise<void> {
    if (!s || !tenant.value) return
    setNotice('')
    try {
      const r = ok(await api.POST('/api/chat/link', {
        body: { customerId: s.sub, tenantId: tenant.value, email: s.email ?? '', name: s.name ?? s.email ?? s.sub, token: s.token },
      }))
      setCode(r.code)
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    }
  }

  const text = code ? `LINK-${code}` : ''
  return (
    <div class='split'>
      <section aria-labelledby='me-title' class='list wide'>
        <h1 id='me-title'>{t.me}</h1>
        <StandingView quota={quota} standing={standing} />
        <h2>{t.myOrders}</h2>
        {orders === null && <p>{t.loading}</p>}
        {orders?.length === 0 && <p>{t.none}</p>}
        <ul>
          {orders?.map((o) => (
            <li key={o.id}>
              #{o.displayId} · {t.orderStatus[o.status]} · {t.fulfillment[o.fulfillmentStatus]} · {money(o.total, o.currency, locale.value)}
            </li>
          ))}
        </ul>
        <h2>{t.notifications}</h2>
        {notes === null && <p>{t.loading}</p>}
        {notes?.length === 0 && <p>{t.none}</p>}
        <ul>
          {notes?.map((n) => <li key={n.id}><strong>{n.title}</strong> {n.body}</li>)}
        </ul>
      </section>
      <section aria-labelledby='link-title' class='detail narrow'>
        <h2 id='link-title'>{t.linkWhatsApp}</h2>
        <p>{t.linkExplain}</p>
        <button type='button' onClick={() => { makeCode().catch(() => {}) }}>{t.makeCode}</button>
        {notice && <p role='alert' class='error'>{notice}</p>}
        {code && (
          <>
            <Qr text={chatLink(chatNumber, text)} label={t.qrAlt(text)} />
            <p><code>{text}</code></p>
            <p><a href={chatLink(chatNumber, text)} rel='noopener noreferrer' target='_blank'>{t.openChat}</a></p>
          </>
        )}
      </section>
    </div>
  )
}
