import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.ts'
import type { components, paths } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Summary = paths['/api/orders']['get']['responses']['200']['content']['application/json']['orders'][number]
type Order = components['schemas']['Order']
type Query = NonNullable<paths['/api/orders']['get']['parameters']['query']>
type Tab = 'toPrepare' | 'ready' | 'completed' | 'canceled'

const TABS: Record<Tab, Query> = {
  toPrepare: { status: 'pending', fulfillment_status: 'not_fulfilled' },
  ready: { status: 'pending', fulfillment_status: 'fulfilled' },
  completed: { status: 'completed' },
  canceled: { status: 'canceled' },
}

export const money = (amount: number, currency: string, l: string) =>
  new Intl.NumberFormat(l, { style: 'currency', currency: currency.toUpperCase() }).format(amount)

export function Orders () {
  const t = strings(locale.value)
  const [tab, setTab] = useState<Tab>('toPrepare')
  const [orders, setOrders] = useState<Summary[] | null>(null)
  const [order, setOrder] = useState<Order | null>(null)
  const [confirming, setConfirming] = useState(false)
  const [notice, setNotice] = useState('')

  const load = async (which: Tab) => {
    setOrders(null)
    setOrders(ok(await api.GET('/api/orders', { params: { query: { ...TABS[which], limit: 50, offset: 0 } } })).orders)
  }
  useEffect(() => { load(tab).catch(() => setOrders([])) }, [tab])

  const open = async (id: string) => {
    setNotice('')
    setConfirming(false)
    setOrder(ok(await api.GET('/api/orders/{orderId}', { params: { path: { orderId: id } } })).order)
  }
  const act = async (what: () => Promise<{ order: Order }>) => {
    setNotice('')
    try {
      setOrder((await what()).order)
      setNotice(t.done)
      await load(tab)
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setNotice(t.conflict(err.message))
    }
  }
  const path = { params: { path: { orderId: order?.id ?? '' } } }
  const markReady = () => act(async () => ok(await api.POST('/api/orders/{orderId}/fulfill', { ...path, body: {} })))
  const cancel = (e: Event) => {
    e.preventDefault()
    const reason = String(new FormData(e.currentTarget as HTMLFormElement).get('reason') ?? '').trim()
    act(async () => ok(await api.POST('/api/orders/{orderId}/cancel', { ...path, body: reason ? { reason } : {} }))).catch(() => {})
  }
  // the reason staff gave, kept as the note of the cancellation in the order's activity
  const why = order?.metadata.activityLogs.filter((a) => a.description === 'orders:activity.cancelled').at(-1)?.note

  return (
    <div class='split'>
      <section aria-labelledby='orders-title' class='list'>
        <h1 id='orders-title'>{t.orders}</h1>
        <div class='tabs' role='group' aria-label={t.status}>
          {(Object.keys(TABS) as Tab[]).map((name) => (
            <button type='button' key={name} aria-pressed={name === tab} onClick={() => { setTab(name); setOrder(null) }}>{t[name]}</button>
          ))}
        </div>
        {orders === null && <p>{t.loading}</p>}
        {orders?.length === 0 && <p>{t.none}</p>}
        <ul>
          {orders?.map((o) => (
            <li key={o.id}>
              <button type='button' class={o.id === order?.id ? 'item current' : 'item'} onClick={() => { open(o.id).catch(() => {}) }}>
                <strong>#{o.displayId}</strong> <span>{o.customer.email}</span>
                <span class='preview'>{money(o.total, o.currency, locale.value)} · {new Date(o.createdAt).toLocaleString(locale.value)}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby='order-title' class='detail'>
        <h2 id='order-title'>{order ? `${t.order} #${order.displayId}` : t.order}</h2>
        {order && (
          <>
            <dl>
              <dt>{t.customer}</dt><dd>{order.customer.firstName} {order.customer.lastName} ({order.customer.email})</dd>
              <dt>{t.status}</dt><dd>{t.orderStatus[order.status]} · {t.fulfillment[order.fulfillmentStatus]}</dd>
              <dt>{t.total}</dt><dd>{money(order.total, order.currency, locale.value)}</dd>
            </dl>
            {why && <p>{t.canceledWhy(why)}</p>}
            <h3>{t.items}</h3>
            <ul>{order.items.map((i) => <li key={i.id}>{i.quantity} × {i.title}</li>)}</ul>
            <div class='actions'>
              {order.status === 'pending' && order.fulfillmentStatus === 'not_fulfilled' && (
                <button type='button' onClick={markReady}>{t.markReady}</button>
              )}
              {order.status === 'pending' && !confirming && <button type='button' onClick={() => setConfirming(true)}>{t.cancelOrder}</button>}
            </div>
            {order.status === 'pending' && confirming && (
              <form class='stack' onSubmit={cancel}>
                <label>{t.cancelReason}<input name='reason' maxLength={500} /></label>
                <button type='submit' class='danger'>{t.confirmCancel}</button>
              </form>
            )}
            {notice && <p role='status'>{notice}</p>}
          </>
        )}
      </section>
    </div>
  )
}
