import type { ChatTemplateKind } from '../../tenants/model.ts'

// What the bot says on its own about a member's orders and reminders (src/chat/updates.ts), in each language.
// Each text takes the same parameters, in the same order, as the event's template (docs/chat.md).

export type UpdateKind = ChatTemplateKind

interface UpdateCopy {
  text: Record<UpdateKind, (params: string[]) => string>
  pickupAt: (address: string, hours: string) => string
  pickupAtClub: string
}

const p = (params: string[], i: number): string => params[i] ?? ''

export const UPDATE_COPY: Record<'es' | 'en', UpdateCopy> = {
  es: {
    text: {
      order_ready_pickup: (x) => `¡Tu pedido #${p(x, 0)} está listo para retirar! ${p(x, 1)}`,
      order_shipped: (x) => `Tu pedido #${p(x, 0)} está en camino a tu dirección de entrega.`,
      order_canceled: (x) => `Tu pedido #${p(x, 0)} fue cancelado. Si tenés dudas, escribí *menu*.`,
      order_completed: (x) => `Tu pedido #${p(x, 0)} está completo. ¡Gracias!`,
      appointment_reminder: (x) => `Recordatorio: ${p(x, 0)}`,
      task_overdue: (x) => `Tarea vencida: ${p(x, 0)}`,
      batch_recall: (x) => `Aviso importante del club: ${p(x, 0)}`,
      membership_expiring: (x) => `Tu registro en el club vence el ${p(x, 0)}. Renovalo en el club para seguir retirando.`,
    },
    pickupAt: (address, hours) => `Retiralo en ${address} (${hours}).`,
    pickupAtClub: 'Retiralo en el club.',
  },
  en: {
    text: {
      order_ready_pickup: (x) => `Your order #${p(x, 0)} is ready for pickup! ${p(x, 1)}`,
      order_shipped: (x) => `Your order #${p(x, 0)} is on its way to your delivery address.`,
      order_canceled: (x) => `Your order #${p(x, 0)} was canceled. Questions? Type *menu*.`,
      order_completed: (x) => `Your order #${p(x, 0)} is complete. Thank you!`,
      appointment_reminder: (x) => `Reminder: ${p(x, 0)}`,
      task_overdue: (x) => `Overdue task: ${p(x, 0)}`,
      batch_recall: (x) => `Important notice from the club: ${p(x, 0)}`,
      membership_expiring: (x) => `Your club registration expires on ${p(x, 0)}. Renew it at the club to keep collecting.`,
    },
    pickupAt: (address, hours) => `Pick it up at ${address} (${hours}).`,
    pickupAtClub: 'Pick it up at the club.',
  },
}
