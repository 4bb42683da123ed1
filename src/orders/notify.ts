import type { FastifyBaseLogger } from 'fastify'
import type { Notifier, NotifyInput } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'

// Tells the member about their order, and the club's admins about a new one. A failure to notify never fails
// the order request: it is logged. The notice's externalId is (event, order), so a step retried or raced
// tells the member once; the chat bot reads the same notices (src/chat/updates.ts).

export type OrderEvent = 'order.placed' | 'order.paymentConfirmed' | 'order.shipped' | 'order.cancelled' | 'order.completed'
/** The order's shipping method by its option's name; anything else reads as delivery. */
export type ShippingMethod = 'pickup' | 'delivery'

interface Words { title: string, body: (n: string) => string }
interface Notice { severity: 'info' | 'success' | 'warning', es: Words, en: Words }

const SHIPPED: Record<ShippingMethod, Notice> = {
  pickup: {
    severity: 'success',
    es: { title: 'Pedido listo para retirar', body: (n) => `Tu pedido #${n} está listo para retirar en el club.` },
    en: { title: 'Order ready for pickup', body: (n) => `Your order #${n} is ready for pickup at the club.` },
  },
  delivery: {
    severity: 'success',
    es: { title: 'Pedido enviado', body: (n) => `Tu pedido #${n} está en camino.` },
    en: { title: 'Order shipped', body: (n) => `Your order #${n} is on its way.` },
  },
}

const TEXT: Record<Exclude<OrderEvent, 'order.shipped'>, Notice> = {
  'order.placed': {
    severity: 'info',
    es: { title: 'Pedido recibido', body: (n) => `Recibimos tu pedido #${n}.` },
    en: { title: 'Order received', body: (n) => `We received your order #${n}.` }
  },
  'order.paymentConfirmed': {
    severity: 'success',
    es: { title: 'Pago confirmado', body: (n) => `Confirmamos el pago de tu pedido #${n}.` },
    en: { title: 'Payment confirmed', body: (n) => `The payment of your order #${n} is confirmed.` }
  },
  'order.cancelled': {
    severity: 'warning',
    es: { title: 'Pedido cancelado', body: (n) => `Tu pedido #${n} fue cancelado.` },
    en: { title: 'Order cancelled', body: (n) => `Your order #${n} was cancelled.` }
  },
  'order.completed': {
    severity: 'success',
    es: { title: 'Pedido completado', body: (n) => `Tu pedido #${n} está completo. ¡Gracias!` },
    en: { title: 'Order completed', body: (n) => `Your order #${n} is complete. Thank you!` }
  },
}

const PICKUP_AT = {
  es: (address: string, hours: string) => `Dirección: ${address}. Horario: ${hours}.`,
  en: (address: string, hours: string) => `Address: ${address}. Hours: ${hours}.`,
}

const STAFF_PLACED = {
  es: { title: 'Nuevo pedido', body: (n: string) => `Entró el pedido #${n}.` },
  en: { title: 'New order', body: (n: string) => `Order #${n} was placed.` },
}

export interface NotifiedOrder { id: string, displayId: string, customerId: string, shippingMethod?: ShippingMethod }

/** The name of the order's (first) shipping method as the club's options are named: `pickup`, else delivery. */
export function shippingMethodOf (names: Array<string | null | undefined>): ShippingMethod {
  return names[0]?.trim().toLowerCase() === 'pickup' ? 'pickup' : 'delivery'
}

export async function notifyMember (notifier: Notifier, log: FastifyBaseLogger, tenant: Tenant, order: NotifiedOrder, event: OrderEvent): Promise<void> {
  const logged = async (who: string, send: () => Promise<void>): Promise<void> => {
    try {
      await send()
    } catch (err) {
      log.warn({ err, orderId: order.id, event, who }, 'order notification failed')
    }
  }
  if (order.customerId) await logged('member', async () => { await notifier.notify(memberNotice(tenant, order, event)) })
  if (event === 'order.placed') await logged('admins', async () => { await notifyAdmins(notifier, tenant, order) })
}

function memberNotice (tenant: Tenant, order: NotifiedOrder, event: OrderEvent): NotifyInput {
  const method = order.shippingMethod ?? 'delivery'
  const notice = event === 'order.shipped' ? SHIPPED[method] : TEXT[event]
  const text = notice[tenant.locale]
  const where = event === 'order.shipped' && method === 'pickup' && tenant.pickup
    ? ` ${PICKUP_AT[tenant.locale](tenant.pickup.address, tenant.pickup.hours)}`
    : ''
  return {
    tenantId: tenant.id,
    recipientId: order.customerId,
    recipientRole: 'member',
    domain: 'orders',
    event,
    title: text.title,
    body: text.body(order.displayId) + where,
    severity: notice.severity,
    source: 'event',
    actionUrl: `/orders/${order.id}`,
    resourceId: order.id,
    resourceType: 'order',
    metadata: { displayId: order.displayId, shippingMethod: method },
    externalId: `${event}:${order.id}`,
  }
}

/** Every admin of the club, in-app and live: a broadcast to the role, copied to each on their next read. */
async function notifyAdmins (notifier: Notifier, tenant: Tenant, order: NotifiedOrder): Promise<void> {
  const text = STAFF_PLACED[tenant.locale]
  await notifier.broadcast({
    tenantId: tenant.id,
    recipientRole: 'admin',
    domain: 'orders',
    event: 'order.placed',
    title: text.title,
    body: text.body(order.displayId),
    severity: 'info',
    source: 'event',
    actionUrl: `/orders/${order.id}`,
    resourceId: order.id,
    resourceType: 'order',
  })
}
