import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, download, ok } from '../api.ts'
import type { paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Member = paths['/api/members']['get']['responses']['200']['content']['application/json']['members'][number]
type Listing = Extract<paths['/api/dispensing']['get']['responses']['200']['content']['application/json'], { entries: unknown }>
type Verification = paths['/api/dispensing/verify']['get']['responses']['200']['content']['application/json']
type YearReport = Extract<paths['/api/reports/dispensing']['get']['responses']['200']['content']['application/json'], { year: number }>
type Filter = { memberId?: string, from?: string, to?: string }

const PAGE = 50

/** The dispensing record (admins): filtered by member and club days, as CSV, its hash chain checked, the yearly report. */
export function Ledger () {
  const t = strings(locale.value)
  const [members, setMembers] = useState<Member[]>([])
  const [memberId, setMemberId] = useState('')
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [listing, setListing] = useState<Listing | null>(null)
  const [check, setCheck] = useState<Verification | null>(null)
  const [year, setYear] = useState(String(new Date().getFullYear()))
  const [report, setReport] = useState<YearReport | null>(null)
  const [notice, setNotice] = useState('')

  const filter = (): Filter => ({ ...(memberId ? { memberId } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) })
  const shown = (err: unknown) => { if (!(err instanceof ApiError && err.status === 401)) setNotice(err instanceof Error ? err.message : String(err)) }

  async function load (offset = 0): Promise<void> {
    setNotice('')
    const r = ok(await api.GET('/api/dispensing', { params: { query: { limit: PAGE, offset, ...filter() } } }))
    setListing(r as Listing)
  }
  useEffect(() => {
    api.GET('/api/members', { params: { query: { limit: 100, offset: 0 } } }).then((r) => setMembers(ok(r).members)).catch(shown)
    load().catch(shown)
  }, [])

  /** The CSV through fetch with the token in its header (never in a URL), saved from a Blob link. */
  async function csv (): Promise<void> {
    const query = new URLSearchParams({ limit: '1000', offset: '0', ...filter() })
    await download(`/api/dispensing?${query}`, 'text/csv', `dispensing${from ? `-${from}` : ''}${to ? `-${to}` : ''}.csv`)
  }
  async function verify (): Promise<void> {
    setCheck(null)
    setCheck(ok(await api.GET('/api/dispensing/verify')))
  }
  async function yearly (e: Event): Promise<void> {
    e.preventDefault()
    setReport(ok(await api.GET('/api/reports/dispensing', { params: { query: { year: Number(year) } } })) as YearReport)
  }

  const grams = (g: number) => `${g.toLocaleString(locale.value)} g`
  const pct = (v: number | null) => v === null ? '—' : `${v.toLocaleString(locale.value)} %`
  const offset = listing?.offset ?? 0
  return (
    <div class='split'>
      <section aria-labelledby='ledger-title' class='wide'>
        <h1 id='ledger-title'>{t.ledger}</h1>
        <form class='actions' aria-label={t.ledgerFilter} onSubmit={(e) => { e.preventDefault(); load().catch(shown) }}>
          {/* a label beside, not around, the select: its name is the label's alone, not the option shown */}
          <span class='field'>
            <label for='ledger-member'>{t.customer}</label>
            <select id='ledger-member' value={memberId} onChange={(e) => setMemberId((e.currentTarget as HTMLSelectElement).value)}>
              <option value=''>{t.all}</option>
              {members.map((m) => <option key={m.id} value={m.id}>{m.firstName} {m.lastName}</option>)}
            </select>
          </span>
          <label>{t.fromDay} <input type='date' value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} /></label>
          <label>{t.toDay} <input type='date' value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} /></label>
          <button type='submit'>{t.search}</button>
          <button type='button' onClick={() => { csv().catch(shown) }}>{t.downloadCsv}</button>
        </form>
        {notice && <p role='alert' class='error'>{notice}</p>}
        {listing === null && <p>{t.loading}</p>}
        {listing?.entries.length === 0 && <p>{t.none}</p>}
        {listing && listing.entries.length > 0 && (
          <table>
            <caption>{t.entriesOf(offset + 1, offset + listing.entries.length, listing.count)}</caption>
            <thead>
              <tr>
                <th scope='col'>{t.day}</th><th scope='col'>{t.customer}</th><th scope='col'>{t.items}</th><th scope='col'>{t.gramsTitle}</th>
                <th scope='col'>THC / CBD</th><th scope='col'>{t.order}</th><th scope='col'>{t.staff}</th>
              </tr>
            </thead>
            <tbody>
              {listing.entries.map((e) => (
                <tr key={e.id}>
                  <td>{e.day}</td>
                  <td>{e.memberName}{e.memberBirthYear ? ` (${e.memberBirthYear})` : ''}</td>
                  <td>{e.product} × {e.quantity}{e.kind === 'reversal' ? ` · ${t.reversal}: ${e.reason ?? ''}` : ''}</td>
                  <td>{grams(e.grams)}</td>
                  <td>{pct(e.thcPercent)} / {pct(e.cbdPercent)}</td>
                  <td>{e.orderId}</td>
                  <td>{e.staff.name}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {listing && (offset > 0 || offset + listing.entries.length < listing.count) && (
          <div class='actions'>
            <button type='button' disabled={offset === 0} onClick={() => { load(Math.max(0, offset - PAGE)).catch(shown) }}>{t.previous}</button>
            <button type='button' disabled={offset + listing.entries.length >= listing.count} onClick={() => { load(offset + PAGE).catch(shown) }}>
              {t.next}
            </button>
          </div>
        )}
      </section>
      <section aria-labelledby='chain-title' class='detail'>
        <h2 id='chain-title'>{t.chain}</h2>
        <button type='button' onClick={() => { verify().catch(shown) }}>{t.verify}</button>
        {check && (
          <p role='status' class={check.ok ? undefined : 'error'}>
            {check.ok ? t.chainIntact(check.entries) : t.chainBroken(check.broken.seq, t.problems[check.broken.problem])}
          </p>
        )}
        <h2>{t.yearReport}</h2>
        <form class='actions' onSubmit={(e) => { yearly(e).catch(shown) }}>
          <label>
            {t.year} <input type='number' min={2000} max={2999} value={year} onInput={(e) => setYear((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type='submit'>{t.showReport}</button>
        </form>
        {report && (
          <table class='compact'>
            <caption>{t.reportTotal(report.year, grams(report.grams))}</caption>
            <thead><tr><th scope='col'>{t.strain}</th><th scope='col'>{t.gramsTitle}</th><th scope='col'>THC / CBD</th></tr></thead>
            <tbody>
              {report.strains.map((s) => (
                <tr key={s.productId ?? s.product}><td>{s.product}</td><td>{grams(s.grams)}</td><td>{pct(s.thcPercent)} / {pct(s.cbdPercent)}</td></tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  )
}
