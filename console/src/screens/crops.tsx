import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.ts'
import type { paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Crop = paths['/api/crops']['get']['responses']['200']['content']['application/json']['crops'][number]
type Status = Crop['status']
type Moves = paths['/api/crops/{cropId}/status']['get']['responses']['200']['content']['application/json']

const QUALITIES = ['A', 'B', 'C'] as const
const STATUSES: Status[] = ['IDEATING', 'PROPAGATING', 'VEGETATING', 'FLOWERING', 'HARVESTING', 'DRYING', 'MANICURING', 'CURING', 'FINISHED']

export function Crops () {
  const t = strings(locale.value)
  const [status, setStatus] = useState<Status | ''>('')
  const [crops, setCrops] = useState<Crop[] | null>(null)
  const [crop, setCrop] = useState<Crop | null>(null)
  const [moves, setMoves] = useState<Moves | null>(null)
  const [notice, setNotice] = useState('')

  const load = async (s: Status | '') => {
    setCrops(ok(await api.GET('/api/crops', { params: { query: { limit: 100, offset: 0, ...(s ? { status: s } : {}) } } })).crops)
  }
  useEffect(() => { load(status).catch(() => setCrops([])) }, [status])

  const open = async (c: Crop) => {
    setCrop(c)
    setNotice('')
    setMoves(ok(await api.GET('/api/crops/{cropId}/status', { params: { path: { cropId: c.id } } })))
  }
  const act = async (what: () => Promise<unknown>) => {
    setNotice('')
    try {
      await what()
      setNotice(t.done)
      await load(status)
      if (crop) {
        const m = ok(await api.GET('/api/crops/{cropId}/status', { params: { path: { cropId: crop.id } } }))
        setMoves(m)
        setCrop({ ...crop, status: m.currentStatus })
      }
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    }
  }
  const path = { params: { path: { cropId: crop?.id ?? '' } } }
  const move = (newStatus: Status) => act(async () => ok(await api.POST('/api/crops/{cropId}/status', { ...path, body: { newStatus } })))

  return (
    <div class='split'>
      <section aria-labelledby='crops-title' class='list'>
        <h1 id='crops-title'>{t.crops}</h1>
        <label>{t.status}{' '}
          <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as Status | '')}>
            <option value=''>{t.all}</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        {crops === null && <p>{t.loading}</p>}
        {crops?.length === 0 && <p>{t.none}</p>}
        <ul>
          {crops?.map((c) => (
            <li key={c.id}>
              <button type='button' class={c.id === crop?.id ? 'item current' : 'item'} onClick={() => { open(c).catch(() => {}) }}>
                <strong>{c.name}</strong> <span class='badge'>{c.status}</span>
                <span class='preview'>{c.strain.name}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby='crop-title' class='detail'>
        <h2 id='crop-title'>{crop ? `${crop.name} · ${crop.status}` : t.crops}</h2>
        {crop && moves && (
          <>
            <h3>{t.nextMoves}</h3>
            <div class='actions'>
              {moves.validTransitions.length === 0 && <p>{t.none}</p>}
              {moves.validTransitions.map((s) => (
                <button type='button' key={s} onClick={() => move(s)}>{t.moveTo(s)}</button>
              ))}
            </div>
            {(moves.currentStatus === 'FLOWERING' || moves.currentStatus === 'HARVESTING') && (
              <form
                class='stack' onSubmit={(e) => {
                  e.preventDefault()
                  const f = new FormData(e.currentTarget as HTMLFormElement)
                  const quality = QUALITIES.find((q) => q === f.get('quality'))
                  act(async () => ok(await api.POST('/api/crops/{cropId}/harvest', {
                    ...path,
                    body: { wetWeight: Number(f.get('wetWeight')), continueFlowering: false, ...(quality ? { quality } : {}) },
                  }))).catch(() => {})
                }}
              >
                <h3>{t.harvest}</h3>
                <label>{t.wetWeight}<input name='wetWeight' type='number' min='0.1' step='0.1' required /></label>
                <label>{t.quality}
                  <select name='quality'><option value=''>-</option><option>A</option><option>B</option><option>C</option></select>
                </label>
                <button type='submit'>{t.record}</button>
              </form>
            )}
            {notice && <p role='status'>{notice}</p>}
          </>
        )}
      </section>
    </div>
  )
}
