import { useState } from 'preact/hooks'
import { logIn, messageOf, type Session } from './api.ts'
import { locale, strings } from './i18n.ts'

export function Login ({ onIn }: { onIn: (s: Session) => void }) {
  const t = strings(locale.value)
  const [kind, setKind] = useState<'user' | 'customer'>('user')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  async function submit (e: Event): Promise<void> {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    setBusy(true)
    setError('')
    try {
      onIn(await logIn(kind, String(form.get('email')), String(form.get('password'))))
    } catch (err) {
      setError(err instanceof Error ? err.message : messageOf(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class='login' onSubmit={submit}>
      <h1 id='login-title'>{t.loginTitle}</h1>
      <fieldset>
        <legend>{t.loginTitle}</legend>
        <label><input type='radio' name='kind' checked={kind === 'user'} onChange={() => setKind('user')} /> {t.kindStaff}</label>
        <label><input type='radio' name='kind' checked={kind === 'customer'} onChange={() => setKind('customer')} /> {t.kindMember}</label>
      </fieldset>
      <label>{t.email}<input name='email' type='email' autocomplete='username' required /></label>
      <label>{t.password}<input name='password' type='password' autocomplete='current-password' required /></label>
      {error && <p role='alert' class='error'>{error}</p>}
      <button type='submit' disabled={busy}>{t.logIn}</button>
    </form>
  )
}
