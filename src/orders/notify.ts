import type { FastifyBaseLogger } from 'fastify'
import type { Notifier } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'

// Tells the member about their order. A failure to notify never fails the order request: it is logged.

export type OrderEvent = 'order.placed' | 'order.paymentConfirmed' | 'order.shipped' | 'order.cancelled'

const TEXT: Record<'es' | 'en', Record<OrderEvent, { title: string, body: (n: string) => string, severity: 'info' | 'success' | 'warning' }>> = {
  es: {
    'order.placed': { title: 'Pedido recibido', body: (n) => `Recibimos tu pedido #${n}.`, severity: 'info' },
    'order.paymentConfirmed': { title: 'Pago confirmado', body: (n) => `Confirmamos el pago de tu pedido #${n}.`, severity: 'success' },
    'order.shipped': { title: 'Pedido enviado', body: (n) => `Tu pedido #${n} está en camino.`, severity: 'success' },
    'order.cancelled': { title: 'Pedido cancelado', body: (n) => `Tu pedido #${n} fue cancelado.`, severity: 'warning' },
  },
  en: {
    'order.placed': { title: 'Order received', body: (n) => `We received your order #${n}.`, severity: 'info' },
    'order.paymentConfirmed': { title: 'Payment confirmed', body: (n) => `The payment of your order #${n} is confirmed.`, severity: 'success' },
    'order.shipped': { title: 'Order shipped', body: (n) => `Your order #${n} is on its way.`, severity: 'success' },
    'order.cancelled': { title: 'Order cancelled', body: (n) => `Your order #${n} was cancelled.`, severity: 'warning' },
  },
}

export interface NotifiedOrder { id: string, displayId: string, customerId: string }

export async function notifyMember (notifier: Notifier, log: FastifyBaseLogger, tenant: Tenant, order: NotifiedOrder, event: OrderEvent): Promise<void> {
  if (!order.customerId) return
  const text = TEXT[tenant.locale][event]
  try {
    await notifier.notify({
      tenantId: tenant.id,
      recipientId: order.customerId,
      recipientRole: 'member',
      domain: 'orders',
      event,
      title: text.title,
      body: text.body(order.displayId),
      severity: text.severity,
      source: 'event',
      actionUrl: `/orders/${order.id}`,
      resourceId: order.id,
      resourceType: 'order',
    })
  } catch (err) {
    log.warn({ err: { message: (err as Error).message }, orderId: order.id, event }, 'order notification failed')
  }
}
