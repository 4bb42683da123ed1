import type { Tenant } from '../tenants/model.ts'

// What the reminder job says, in the club's language (tenants carry es or en).
interface Messages {
  appointmentTitle: string
  appointmentBody: (title: string, time: string, timeZone: string) => string
  taskTitle: string
  taskBody: (title: string, dueDate: string) => string
}

const MESSAGES: Record<Tenant['locale'], Messages> = {
  es: {
    appointmentTitle: 'Recordatorio de turno',
    appointmentBody: (title, time, timeZone) => `Mañana tenés un turno: ${title}, a las ${time} (${timeZone}).`,
    taskTitle: 'Tarea vencida',
    taskBody: (title, dueDate) => `La tarea "${title}" vencía el ${dueDate} y sigue pendiente.`,
  },
  en: {
    appointmentTitle: 'Appointment reminder',
    appointmentBody: (title, time, timeZone) => `You have an appointment tomorrow: ${title}, at ${time} (${timeZone}).`,
    taskTitle: 'Task overdue',
    taskBody: (title, dueDate) => `The task "${title}" was due on ${dueDate} and is still open.`,
  },
}

export const messagesFor = (locale: Tenant['locale']): Messages => MESSAGES[locale]
