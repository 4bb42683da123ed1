import { useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.ts'
import type { components, paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'
import { money } from './orders.tsx'
import { StandingView } from './standing.tsx'

type Member = paths['/api/members']['get']['responses']['200']['content']['application/json']['members'][number]
type Summary = paths['/api/orders']['get']['responses']['200']['content']['application/json']['orders'][number]
type Quota = components['schemas']['MemberQuota']
/** The details of a handover's refusal (src/dispensing/refusals.ts). */
interface Details {
  period?: 'day' | 'month' | 'year'
  remaining?: number
  reason?: string
  status?: Quota['status']
  validUntil?: string | null
  minAge?: number | null
  minMembershipDays?: number
  from?: string
  ceilingPercent?: number | null
  underAge?: number | null
}

/** The counter: find a member by name, email or phone; their standing, remaining grams and open orders side by side. */
export function Counter () {
  const t = strings(locale.value)
  const [q, setQ] = useState('')
  const [found, setFound] = useState<Member[] | null>(null)
  const [member, setMember] = useState<Member | null>(null)
  const [quota, setQuota] = useState<Quota | null>(null)
  const [orders, setOrders] = useState<Summary[] | null>(null)
  const [checked, setChecked] = useState(false)
  const [notice, setNotice] = useState('')

  async function search (e: Event): Promise<void> {
    e.preventDefault()
    setFound(ok(await api.GET('/api/members', { params: { query: { limit: 20, offset: 0, q } } })).members)
  }
  async function handOver (orderId: string): Promise<void> {
    setNotice('')
    try {
      ok(await api.POST('/api/orders/{orderId}/handover', { params: { path: { orderId } }, body: { identityChecked: checked } }))
      setNotice(t.handedOver)
      setChecked(false)
      if (member) await open(member, false)
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.refused(refusal(err)))
    }
  }
  /** A refusal in words: over a limit says which and what is left; a standing or rule says which, with its figure. */
  function refusal (err: ApiError): string {
    const d = (err.body as { error?: { details?: Details } } | undefined)?.error?.details
    if (err.code === 'LIMIT_EXCEEDED' && d?.period && d.remaining !== undefined) return t.overLimit(d.period, d.remaining)
    if (err.code !== 'FORBIDDEN' || !d?.reason) return err.message
    switch (d.reason) {
      case 'status': return d.status ? t.refusedStatus(t.statuses[d.status]) : err.message
      case 'registration': return t.refusedRegistration(d.validUntil ? new Date(`${d.validUntil}T12:00:00`).toLocaleDateString(locale.value) : null)
      case 'minAge': return t.refusedMinAge(d.minAge ?? 18)
      case 'minMembershipDays': return t.refusedMinDays(d.minMembershipDays ?? 0, d.from ?? '')
      case 'allowanceRequired': return t.refusedAllowance
      case 'thcCeiling': return t.refusedThc(d.underAge ?? 21, d.ceilingPercent ?? 0)
      default: return err.message
    }
  }
  async function open (m: Member, fresh = true): Promise<void> {
    if (fresh) setNotice('')
    setMember(m)
    setQuota(null)
    setOrders(null)
    const memberId = m.id
    const [qr, or] = await Promise.all([
      api.GET('/api/members/{memberId}/quota', { params: { path: { memberId } } }),
      api.GET('/api/orders', { params: { query: { customer_id: memberId, status: 'pending', limit: 20, offset: 0 } } }),
    ])
    setQuota(ok(qr).quota)
    setOrders(ok(or).orders)
  }

  return (
    <div class='split'>
      <section aria-labelledby='counter-title' class='list'>
        <h1 id='counter-title'>{t.counter}</h1>
        <form role='search' onSubmit={(e) => { search(e).catch(() => setFound([])) }}>
          <label>{t.findMember} <input type='search' value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} /></label>
          <button type='submit'>{t.search}</button>
        </form>
        {found?.length === 0 && <p>{t.none}</p>}
        <ul>
          {found?.map((m) => (
            <li key={m.id}>
              <button type='button' class={m.id === member?.id ? 'item current' : 'item'} onClick={() => { open(m).catch(() => {}) }}>
                <strong>{m.firstName} {m.lastName}</strong>
                <span class='preview'>{m.email}{m.phone ? ` · ${m.phone}` : ''}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby='member-title' class='detail'>
        <h2 id='member-title'>{member ? `${member.firstName} ${member.lastName}` : t.customer}</h2>
        {member && (
          <>
            <StandingView quota={quota} />
            <h3>{t.openOrders}</h3>
            <label class='check'>
              <input type='checkbox' checked={checked} onChange={(e) => setChecked((e.currentTarget as HTMLInputElement).checked)} /> {t.identityChecked}
            </label>
            {notice && <p role='status'>{notice}</p>}
            {orders === null && <p>{t.loading}</p>}
            {orders?.length === 0 && <p>{t.none}</p>}
            <ul class='plain'>
              {orders?.map((o) => (
                <li key={o.id}>
                  #{o.displayId} · {t.fulfillment[o.fulfillmentStatus]} · {money(o.total, o.currency, locale.value)}{' '}
                  <button type='button' onClick={() => { handOver(o.id).catch(() => {}) }}>{t.handOver(o.displayId)}</button>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  )
}
