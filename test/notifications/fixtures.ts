import type { NotifyInput } from '../../src/notifications/types.ts'

/** A valid notice for a recipient of club-norte; override what a test is about. */
export function notice (recipientId: string, overrides: Partial<NotifyInput> = {}): NotifyInput {
  return {
    tenantId: 'club-norte',
    recipientId,
    recipientRole: 'member',
    domain: 'orders',
    event: 'order.placed',
    title: 'Pedido recibido',
    body: 'Tu pedido #1 fue recibido.',
    severity: 'info',
    source: 'event',
    ...overrides,
  }
}
