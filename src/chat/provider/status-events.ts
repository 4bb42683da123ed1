import { z } from 'zod'
import { isDeliveryStatus, type DeliveryStatus, type ProviderError, type StatusUpdate } from './receipts.ts'

// The provider's status events (`chat.message.sent`, `.delivered`, `.read`, `.failed`): the received event's shape,
// with the sent message's id in `message.id`, its status in `message.status`, `message.timestamp`, and
// `message.errors: [{code, title}]` on a failure. Its v2 payloads also carry the status and the raw status history
// (Meta's own status objects) inside the provider's extension object of the message, which is read as well: an
// event can then tell of steps whose own event is late or lost.

export const STATUS_EVENTS: Record<string, DeliveryStatus> = {
  'chat.message.sent': 'sent',
  'chat.message.delivered': 'delivered',
  'chat.message.read': 'read',
  'chat.message.failed': 'failed',
}
/** The provider's name for its extension object inside `message`. */
export const EXTENSION = 'kapso'

/** Epoch ms of a provider timestamp: Unix seconds (a number or digits, as Meta writes them), or an ISO date. */
export function epochMsOf (value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value < 1e12 ? value * 1000 : value
  if (typeof value !== 'string' || value.trim() === '') return undefined
  if (/^\d+(\.\d+)?$/.test(value.trim())) return epochMsOf(Number(value.trim()))
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : at
}

const code = z.union([z.number().int(), z.string().regex(/^\d{1,9}$/).transform(Number)]).optional().catch(undefined)
const error = z.looseObject({
  code,
  title: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
})
const errors = z.array(z.unknown()).max(20).optional().catch(undefined)
  .transform((list): ProviderError[] => (list ?? []).flatMap((e) => {
    const parsed = error.safeParse(e)
    if (!parsed.success) return []
    return [{ code: parsed.data.code, title: (parsed.data.title ?? parsed.data.message ?? '').slice(0, 200) }]
  }))
const rawStatus = z.looseObject({ id: z.string().optional(), status: z.string(), timestamp: z.unknown().optional(), errors })
const statusMessage = z.looseObject({
  id: z.string().min(1).max(256),
  status: z.string().optional(),
  timestamp: z.unknown().optional(),
  errors,
  [EXTENSION]: z.looseObject({
    direction: z.string().optional().catch(undefined),
    status: z.string().optional().catch(undefined),
    statuses: z.array(z.unknown()).max(50).optional().catch(undefined),
  }).optional().catch(undefined),
})
const statusEvent = z.looseObject({ type: z.string().optional(), message: statusMessage })

/**
 * The status updates one event carries (its own, then the history's, each with a known status), or undefined when
 * the body is not a status event. `event` is the delivery's event name (the header, or the item's `type`); without
 * one, a message whose status is one of the four is taken as a status event, unless the provider says it came in
 * (its inbound messages carry their own read status).
 */
export function readStatusEvent (body: unknown, event: string | undefined, receivedAt: number): StatusUpdate[] | undefined {
  const named = event === undefined ? undefined : STATUS_EVENTS[event]
  if (event !== undefined && named === undefined) return undefined
  const parsed = statusEvent.safeParse(body)
  if (!parsed.success) return undefined
  const m = parsed.data.message
  const extension = m[EXTENSION]
  if (named === undefined && extension?.direction === 'inbound') return undefined
  const status = named ?? [m.status, extension?.status].find(isDeliveryStatus)
  if (status === undefined) return undefined
  const updates: StatusUpdate[] = [{ messageId: m.id, status, at: epochMsOf(m.timestamp) ?? receivedAt, errors: m.errors }]
  for (const item of extension?.statuses ?? []) {
    const raw = rawStatus.safeParse(item)
    if (!raw.success || !isDeliveryStatus(raw.data.status)) continue
    if (raw.data.id !== undefined && raw.data.id !== m.id) continue
    updates.push({ messageId: m.id, status: raw.data.status, at: epochMsOf(raw.data.timestamp) ?? receivedAt, errors: raw.data.errors })
  }
  return updates
}
