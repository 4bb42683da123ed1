import { useEffect, useState } from 'preact/hooks'
import { api, expired, logOut, ok, restore, session, tenant, type Session } from './api.ts'
import { chooseLocale, clubLocale, locale, strings, type Locale } from './i18n.ts'
import { Login } from './login.tsx'
import { Inbox } from './screens/inbox.tsx'
import { Orders } from './screens/orders.tsx'
import { Members } from './screens/members.tsx'
import { Crops } from './screens/crops.tsx'
import { Me } from './screens/me.tsx'
import { Counter } from './screens/counter.tsx'
import { Batches } from './screens/batches.tsx'
import { Ledger } from './screens/ledger.tsx'

type Screen = 'counter' | 'batches' | 'ledger' | 'inbox' | 'orders' | 'members' | 'crops' | 'me'

/** The screens each role may use (the API refuses the rest anyway). */
const SCREENS: Record<Session['role'], Screen[]> = {
  admin: ['inbox', 'counter', 'orders', 'members', 'crops', 'batches', 'ledger'],
  grower: ['inbox', 'orders', 'crops', 'batches'],
  member: ['me'],
}

const screenOf = (role: Session['role']): Screen => {
  const wanted = location.hash.slice(2) as Screen
  const allowed = SCREENS[role]
  return allowed.includes(wanted) ? wanted : allowed[0] as Screen
}

export function App () {
  const [ready, setReady] = useState(false)
  const [screen, setScreen] = useState<Screen>('inbox')
  const [clubName, setClubName] = useState('')
  const [chatNumber, setChatNumber] = useState<string | null>(null)
  const s = session.value
  const t = strings(locale.value)

  useEffect(() => {
    restore().then((found) => { if (found) start(found) }).finally(() => setReady(true))
    const onHash = () => { if (session.value) setScreen(screenOf(session.value.role)) }
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])

  useEffect(() => { document.documentElement.lang = locale.value }, [locale.value])

  // The login form opens when the token expires, not at the next click: what is typed stays under it.
  const expiresAt = s ? Date.parse(s.expiresAt) : undefined
  useEffect(() => {
    if (expiresAt === undefined) return
    const timer = setTimeout(() => { expired.value = true }, Math.max(0, expiresAt - Date.now()))
    return () => clearTimeout(timer)
  }, [expiresAt])

  function start (found: Session): void {
    // nothing of a previous login survives: the screens below are keyed by who is logged in
    session.value = found
    tenant.value = found.tenants[0] ?? null
    expired.value = false
    const first = screenOf(found.role)
    setScreen(first)
    history.replaceState(null, '', `#/${first}`)
    api.GET('/console/context').then((r) => {
      const c = ok(r)
      setClubName(c.club.name)
      setChatNumber(c.chatNumber)
      clubLocale(c.club.locale)
    }).catch(() => {})
  }

  function relogin (found: Session): void {
    // the same person after an expired token keeps the screen as it was (a reply typed, say); anyone else starts anew
    if (session.value && found.sub === session.value.sub && found.role === session.value.role) {
      session.value = found
      expired.value = false
    } else {
      start(found)
    }
  }

  async function out (): Promise<void> {
    await logOut().catch(() => {})
    session.value = null
    tenant.value = null
    setClubName('')
    history.replaceState(null, '', location.pathname)
  }

  if (!ready) return <main id='main'><p>{t.loading}</p></main>
  const languages = (
    <label class='lang'>{t.language}{' '}
      <select value={locale.value} onChange={(e) => chooseLocale((e.currentTarget as HTMLSelectElement).value as Locale)}>
        <option value='es'>Español</option>
        <option value='en'>English</option>
      </select>
    </label>
  )
  if (!s) return <><header class='top'><span class='brand'>{t.appName}</span>{languages}</header><main id='main'><Login onIn={start} /></main></>

  const key = `${s.sub}|${tenant.value ?? ''}`
  return (
    <>
      <a class='skip' href='#main'>{t.skip}</a>
      <header class='top'>
        <span class='brand'>{clubName || t.appName}</span>
        <nav aria-label={t.appName}>
          {SCREENS[s.role].map((name) => (
            <a key={name} href={`#/${name}`} aria-current={name === screen ? 'page' : undefined}>{t[name]}</a>
          ))}
        </nav>
        {s.tenants.length > 1 && (
          <label>{t.club}{' '}
            <select value={tenant.value ?? ''} onChange={(e) => { tenant.value = (e.currentTarget as HTMLSelectElement).value }}>
              {s.tenants.map((id) => <option key={id} value={id}>{id}</option>)}
            </select>
          </label>
        )}
        <span class='who'>{s.name ?? s.email ?? s.sub}</span>
        {languages}
        <button type='button' onClick={out}>{t.logOut}</button>
      </header>
      <main id='main' key={key} inert={expired.value}>
        {screen === 'inbox' && <Inbox />}
        {screen === 'counter' && <Counter />}
        {screen === 'orders' && <Orders />}
        {screen === 'members' && <Members />}
        {screen === 'crops' && <Crops />}
        {screen === 'batches' && <Batches />}
        {screen === 'ledger' && <Ledger />}
        {screen === 'me' && <Me chatNumber={chatNumber} />}
      </main>
      {expired.value && (
        <div class='overlay' role='dialog' aria-modal='true' aria-labelledby='login-title'>
          <div class='dialog'><p>{t.loginAgain}</p><Login onIn={relogin} /></div>
        </div>
      )}
    </>
  )
}
