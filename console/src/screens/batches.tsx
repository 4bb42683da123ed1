import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, download, ok, session } from '../api.ts'
import type { paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Summary = paths['/api/batches']['get']['responses']['200']['content']['application/json']['batches'][number]
type Batch = paths['/api/batches/{batchNumber}']['get']['responses']['200']['content']['application/json']['batch']
type Status = Summary['status']
type Product = paths['/api/products']['get']['responses']['200']['content']['application/json']['products'][number]

const GRAMS: Array<keyof Batch['grams']> = ['harvested', 'available', 'packaged', 'onShelf', 'dispensed', 'destroyed', 'withdrawn', 'onHand']

export function Batches () {
  const t = strings(locale.value)
  const [status, setStatus] = useState<Status | ''>('AVAILABLE')
  const [batches, setBatches] = useState<Summary[] | null>(null)
  const [batch, setBatch] = useState<Batch | null>(null)
  const [products, setProducts] = useState<Product[]>([])
  const [notice, setNotice] = useState('')

  const load = async (s: Status | '') => {
    setBatches(ok(await api.GET('/api/batches', { params: { query: { limit: 100, offset: 0, ...(s ? { status: s } : {}) } } })).batches)
  }
  useEffect(() => { load(status).catch(() => setBatches([])) }, [status])
  useEffect(() => {
    api.GET('/api/products', { params: { query: { limit: 100, offset: 0 } } }).then((r) => setProducts(ok(r).products)).catch(() => {})
  }, [])

  const open = async (n: string) => {
    setNotice('')
    setBatch(ok(await api.GET('/api/batches/{batchNumber}', { params: { path: { batchNumber: n } } })).batch)
  }
  const act = async (what: () => Promise<{ batch: Batch }>) => {
    setNotice('')
    try {
      setBatch((await what()).batch)
      setNotice(t.done)
      await load(status)
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    }
  }
  const path = { params: { path: { batchNumber: batch?.batchNumber ?? '' } } }
  /** The printable info sheet for the batch's packaging, in the club's language (saved as a page to print). */
  const sheet = (n: string) => {
    setNotice('')
    download(`/api/batches/${encodeURIComponent(n)}/info-sheet`, 'text/html', `${t.infoSheetFile}-${n}.html`).catch((err: unknown) => {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    })
  }
  const form = (e: Event) => {
    e.preventDefault()
    return new FormData(e.currentTarget as HTMLFormElement)
  }
  const recordLab = (e: Event) => {
    const f = form(e)
    const body = { thcPercent: Number(f.get('thc')), cbdPercent: Number(f.get('cbd')), reportRef: String(f.get('reportRef')) }
    act(async () => ok(await api.POST('/api/batches/{batchNumber}/lab-results', { ...path, body }))).catch(() => {})
  }
  const pack = (e: Event) => {
    const f = form(e)
    const body = { variantId: String(f.get('variantId')), units: Number(f.get('units')) }
    act(async () => ok(await api.POST('/api/batches/{batchNumber}/package', { ...path, body }))).catch(() => {})
  }
  const recall = (e: Event) => {
    const body = { reason: String(form(e).get('reason')) }
    act(async () => ok(await api.POST('/api/batches/{batchNumber}/recall', { ...path, body }))).catch(() => {})
  }
  const variants = products.flatMap((p) => p.variants.filter((v) => v.gramsPerUnit !== null)
    .map((v) => ({ id: v.id, title: `${p.title} · ${v.title} (${v.gramsPerUnit} g)` })))

  return (
    <div class='split'>
      <section aria-labelledby='batches-title' class='list'>
        <h1 id='batches-title'>{t.batches}</h1>
        <label>{t.status}{' '}
          <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as Status | '')}>
            <option value=''>{t.all}</option>
            {(['AVAILABLE', 'DEPLETED', 'RECALLED'] as const).map((s) => <option key={s} value={s}>{t.batchStatus[s]}</option>)}
          </select>
        </label>
        {batches === null && <p>{t.loading}</p>}
        {batches?.length === 0 && <p>{t.none}</p>}
        <ul>
          {batches?.map((b) => (
            <li key={b.batchNumber}>
              <button
                type='button' class={b.batchNumber === batch?.batchNumber ? 'item current' : 'item'}
                onClick={() => { open(b.batchNumber).catch(() => {}) }}
              >
                <strong>{b.batchNumber}</strong> <span class='badge'>{t.batchStatus[b.status]}</span>
                <span class='preview'>{b.strain.name} · {b.gramsOnHand} g{b.lab ? ` · THC ${b.lab.thcPercent} %` : ''}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby='batch-title' class='detail'>
        <h2 id='batch-title'>{batch ? `${t.batch} ${batch.batchNumber} · ${batch.strain.name}` : t.batch}</h2>
        {batch && (
          <>
            <p>{t.status}: {t.batchStatus[batch.status]}</p>
            <table class='compact'>
              <caption>{t.gramsTitle}</caption>
              <tbody>{GRAMS.map((k) => <tr key={k}><th scope='row'>{t.gramsOf[k]}</th><td>{batch.grams[k]} g</td></tr>)}</tbody>
            </table>
            <p>{batch.lab ? t.labIs(batch.lab.thcPercent, batch.lab.cbdPercent, batch.lab.reportRef) : t.noLab}</p>
            <p><button type='button' onClick={() => sheet(batch.batchNumber)}>{t.infoSheet}</button></p>
            {batch.packaged.length > 0 && (
              <ul class='plain'>{batch.packaged.map((p) => <li key={p.variantId}>{p.title}: {p.remainingUnits} / {p.units} × {p.gramsPerUnit} g</li>)}</ul>
            )}
            {notice && <p role='status'>{notice}</p>}
            <div class='forms'>
              <form class='stack' onSubmit={recordLab}>
                <h3>{t.recordLab}</h3>
                <label>THC %<input name='thc' type='number' min='0' max='100' step='0.1' required /></label>
                <label>CBD %<input name='cbd' type='number' min='0' max='100' step='0.1' required /></label>
                <label>{t.reportRef}<input name='reportRef' required maxLength={200} /></label>
                <button type='submit'>{t.record}</button>
              </form>
              {batch.status === 'AVAILABLE' && variants.length > 0 && (
                <form class='stack' onSubmit={pack}>
                  <h3>{t.package}</h3>
                  <label>{t.variant}<select name='variantId' required>{variants.map((v) => <option key={v.id} value={v.id}>{v.title}</option>)}</select></label>
                  <label>{t.units}<input name='units' type='number' min='1' step='1' required /></label>
                  <button type='submit'>{t.package}</button>
                </form>
              )}
              {batch.status !== 'RECALLED' && session.value?.role === 'admin' && (
                <form class='stack' onSubmit={recall}>
                  <h3>{t.recall}</h3>
                  <label>{t.recallReason}<input name='reason' required maxLength={500} /></label>
                  <button type='submit' class='danger'>{t.recall}</button>
                </form>
              )}
            </div>
          </>
        )}
      </section>
    </div>
  )
}
