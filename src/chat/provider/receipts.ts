// Delivery receipts: the provider's status of each reply the service sent, kept as the furthest it got. Events
// arrive out of order and twice ("delivered" after "failed", "read" before "delivered"), so a receipt is a merge
// that gives the same result in any order: progress only moves forward (sent < delivered < read), and a failure
// is kept beside a later delivery instead of replacing it, or being replaced by it.

const DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const
export type DeliveryStatus = typeof DELIVERY_STATUSES[number]
export type Progress = Exclude<DeliveryStatus, 'failed'>
const RANK: Record<Progress, number> = { sent: 1, delivered: 2, read: 3 }

/** One error of a failed status, as the provider reports it (its code decides the class; the title is for people). */
export interface ProviderError {
  code: number | undefined
  title: string
}

/** One status event of one sent message. `at` is epoch ms. */
export interface StatusUpdate {
  messageId: string
  status: DeliveryStatus
  at: number
  errors: ProviderError[]
}

export interface Failure {
  at: number
  code: number | undefined
  title: string
}

/** What is kept per sent reply. An empty receipt is a reply the provider accepted and reported nothing of yet. */
export interface Receipt {
  progress?: Progress
  /** when the furthest progress was first reported */
  progressAt?: number
  failure?: Failure
}

/** What staff see: read and delivered win over a failure (the phone got it after all), a failure over sent. */
export type ShownStatus = DeliveryStatus | 'accepted'

export function shownStatus (receipt: Receipt): ShownStatus {
  if (receipt.progress === 'read' || receipt.progress === 'delivered') return receipt.progress
  if (receipt.failure) return 'failed'
  return receipt.progress ?? 'accepted'
}

// The earliest failure, then the lowest code, then the title: the same one whatever order they came in.
function earlier (a: Failure, b: Failure): Failure {
  if (a.at !== b.at) return a.at < b.at ? a : b
  const ca = a.code ?? Number.MAX_SAFE_INTEGER
  const cb = b.code ?? Number.MAX_SAFE_INTEGER
  if (ca !== cb) return ca < cb ? a : b
  return a.title <= b.title ? a : b
}

function failureOf (update: StatusUpdate): Failure {
  const first = update.errors[0]
  return { at: update.at, code: first?.code, title: first?.title ?? 'failed without a reason' }
}

/** The receipt after one more event; commutative, associative and idempotent. */
export function mergeReceipt (receipt: Receipt, update: StatusUpdate): Receipt {
  if (update.status === 'failed') {
    const failure = failureOf(update)
    return { ...receipt, failure: receipt.failure ? earlier(receipt.failure, failure) : failure }
  }
  const rank = RANK[update.status]
  const current = receipt.progress ? RANK[receipt.progress] : 0
  if (rank > current) return { ...receipt, progress: update.status, progressAt: update.at }
  if (rank === current && receipt.progressAt !== undefined && update.at < receipt.progressAt) return { ...receipt, progressAt: update.at }
  return receipt
}

export function isDeliveryStatus (value: unknown): value is DeliveryStatus {
  return typeof value === 'string' && (DELIVERY_STATUSES as readonly string[]).includes(value)
}
