import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.ts'
import type { paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Member = paths['/api/members']['get']['responses']['200']['content']['application/json']['members'][number]

export function Members () {
  const t = strings(locale.value)
  const [q, setQ] = useState('')
  const [members, setMembers] = useState<Member[] | null>(null)
  const [notice, setNotice] = useState<Record<string, string>>({})
  const [registered, setRegistered] = useState('')

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
    </div>
  )
}
