import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.ts'
import type { components, paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'
import { StandingView } from './standing.tsx'

type Member = paths['/api/members']['get']['responses']['200']['content']['application/json']['members'][number]
type Standing = components['schemas']['MemberStanding']
type Quota = components['schemas']['MemberQuota']
type Status = Standing['status']
const STATUSES: Status[] = ['pending', 'active', 'suspended', 'lapsed', 'ended']

/** A member's standing as staff change it: status with its reason, valid until, personal monthly allowance. */
function EditStanding ({ member, onClose }: { member: Member, onClose: () => void }) {
  const t = strings(locale.value)
  const [standing, setStanding] = useState<Standing | null>(null)
  const [quota, setQuota] = useState<Quota | null>(null)
  const [status, setStatus] = useState<Status>('active')
  const [reason, setReason] = useState('')
  const [validUntil, setValidUntil] = useState('')
  const [allowance, setAllowance] = useState('')
  const [notice, setNotice] = useState('')
  const memberId = member.id
  const name = `${member.firstName} ${member.lastName}`

  const show = (s: Standing) => {
    setStanding(s)
    setStatus(s.status)
    setReason(s.reason ?? '')
    setValidUntil(s.validUntil ?? '')
    setAllowance(s.monthlyAllowanceGrams === null ? '' : String(s.monthlyAllowanceGrams))
  }
  const loadQuota = async () => setQuota(ok(await api.GET('/api/members/{memberId}/quota', { params: { path: { memberId } } })).quota)
  useEffect(() => {
    api.GET('/api/members/{memberId}', { params: { path: { memberId } } }).then((r) => show(ok(r).standing)).catch(() => {})
    loadQuota().catch(() => {})
  }, [memberId])

  async function save (e: Event): Promise<void> {
    e.preventDefault()
    setNotice('')
    try {
      const body = {
        status,
        reason: reason.trim() || null,
        validUntil: validUntil || null,
        monthlyAllowanceGrams: allowance.trim() === '' ? null : Number(allowance),
      }
      show(ok(await api.PATCH('/api/members/{memberId}', { params: { path: { memberId } }, body })).standing)
      setNotice(t.saved)
      await loadQuota()
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    }
  }

  return (
    <section aria-labelledby='edit-title' class='detail narrow'>
      <h2 id='edit-title'>{t.editMember(name)}</h2>
      <StandingView quota={quota} standing={standing} />
      {standing && (
        <form class='stack' onSubmit={(e) => { save(e).catch(() => {}) }}>
          <label>{t.standing}
            <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as Status)}>
              {STATUSES.map((s) => <option key={s} value={s}>{t.statuses[s]}</option>)}
            </select>
          </label>
          <label>{t.statusReason}<input value={reason} maxLength={500} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} /></label>
          <label>{t.validUntil}<input type='date' value={validUntil} onInput={(e) => setValidUntil((e.currentTarget as HTMLInputElement).value)} /></label>
          <label>{t.allowance}
            <input
              type='number' min='0.001' step='0.001' value={allowance} aria-describedby='allowance-hint'
              onInput={(e) => setAllowance((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <small id='allowance-hint'>{t.allowanceHint}</small>
          <div class='actions'>
            <button type='submit'>{t.save}</button>
            <button type='button' onClick={onClose}>{t.close}</button>
          </div>
        </form>
      )}
      {notice && <p role='status'>{notice}</p>}
    </section>
  )
}

export function Members () {
  const t = strings(locale.value)
  const [q, setQ] = useState('')
  const [members, setMembers] = useState<Member[] | null>(null)
  const [notice, setNotice] = useState<Record<string, string>>({})
  const [registered, setRegistered] = useState('')
  const [editing, setEditing] = useState<Member | null>(null)

  const load = async (query: string) => {
    setMembers(ok(await api.GET('/api/members', { params: { query: { limit: 50, offset: 0, ...(query ? { q: query } : {}) } } })).members)
  }
  useEffect(() => { load('').catch(() => setMembers([])) }, [])

  const say = (id: string, text: string) => setNotice((n) => ({ ...n, [id]: text }))
  const act = async (id: string, what: () => Promise<string>) => {
    try {
      say(id, await what())
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) say(id, t.conflict(err.message))
    }
  }

  async function register (e: Event): Promise<void> {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const f = new FormData(form)
    const phone = String(f.get('phone') ?? '').trim()
    try {
      const r = ok(await api.POST('/api/members', {
        body: { email: String(f.get('email')), firstName: String(f.get('firstName')), lastName: String(f.get('lastName')), ...(phone ? { phone } : {}) },
      }))
      setRegistered(r.passwordToken ? t.tokenIs(r.passwordToken) : t.done)
      form.reset()
      await load(q)
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setRegistered(t.conflict(err.message))
    }
  }

  return (
    <div class='split'>
      <section aria-labelledby='members-title' class='list wide'>
        <h1 id='members-title'>{t.members}</h1>
        <form role='search' onSubmit={(e) => { e.preventDefault(); load(q).catch(() => {}) }}>
          <label>{t.search} <input type='search' value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} /></label>
          <button type='submit'>{t.search}</button>
        </form>
        {members === null && <p>{t.loading}</p>}
        {members?.length === 0 && <p>{t.none}</p>}
        <table>
          <thead>
            <tr>
              <th scope='col'>{t.firstName}</th><th scope='col'>{t.email}</th><th scope='col'>{t.phone}</th><th scope='col'>{t.password}</th>
              <th scope='col'><span class='sr'>{t.status}</span></th>
            </tr>
          </thead>
          <tbody>
            {members?.map((m) => (
              <tr key={m.id}>
                <td>{m.firstName} {m.lastName}</td>
                <td>{m.email}</td>
                <td>{m.phone}</td>
                <td>{m.hasAccount ? t.hasAccount : t.noAccount}</td>
                <td>
                  <button type='button' aria-label={t.editOf(`${m.firstName} ${m.lastName}`)} onClick={() => setEditing(m)}>{t.edit}</button>
                  {!m.hasAccount && (
                    <button
                      type='button' onClick={() => act(m.id, async () => {
                        const r = ok(await api.POST('/api/members/{memberId}/password-token', { params: { path: { memberId: m.id } } }))
                        return t.tokenIs(r.passwordToken)
                      })}
                    >{t.passwordToken}
                    </button>
                  )}
                  {m.phone && (
                    <button
                      type='button' onClick={() => act(m.id, async () => {
                        const r = ok(await api.POST('/api/members/{memberId}/chat-link', { params: { path: { memberId: m.id } } }))
                        return t.codeIs(r.text)
                      })}
                    >{t.chatLink}
                    </button>
                  )}
                  {notice[m.id] && <p role='status'>{notice[m.id]}</p>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {editing && <EditStanding key={editing.id} member={editing} onClose={() => setEditing(null)} />}
      {!editing && (
        <section aria-labelledby='register-title' class='detail narrow'>
          <h2 id='register-title'>{t.register}</h2>
          <form class='stack' onSubmit={register}>
            <label>{t.email}<input name='email' type='email' required /></label>
            <label>{t.firstName}<input name='firstName' required /></label>
            <label>{t.lastName}<input name='lastName' required /></label>
            <label>{t.phone}<input name='phone' type='tel' /></label>
            <button type='submit'>{t.register}</button>
          </form>
          {registered && <p role='status'>{registered}</p>}
        </section>
      )}
    </div>
  )
}
