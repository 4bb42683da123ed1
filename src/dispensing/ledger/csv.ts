import type { LedgerEntry } from './chain.ts'

// The record as CSV for an inspector: one row per entry, every field the hash covers plus the hashes. Pure.

export const CSV_COLUMNS = [
  'id', 'seq', 'kind', 'at', 'day', 'orderId', 'lineId', 'memberId', 'memberName', 'memberBirthYear', 'productId', 'variantId', 'product',
  'quantity', 'grams', 'thcPercent', 'cbdPercent', 'batches', 'staffId', 'staffName', 'reverses', 'reason', 'prevHash', 'hash',
] as const

/** A text cell that a spreadsheet would take for a formula starts with an apostrophe; quotes are doubled. */
function cell (v: string | number | null): string {
  if (v === null) return ''
  if (typeof v === 'number') return String(v)
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v
  return /[",\n\r']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

export function toCsv (entries: readonly LedgerEntry[]): string {
  const rows = entries.map((e) => [
    e.id, e.seq, e.kind, e.at, e.day, e.orderId, e.lineId, e.memberId, e.memberName, e.memberBirthYear, e.productId, e.variantId, e.product,
    e.quantity, e.grams, e.thcPercent, e.cbdPercent, e.batches.map((b) => `${b.batchNumber}:${b.grams}`).join(' '), e.staff.id, e.staff.name,
    e.reverses, e.reason, e.prevHash, e.hash,
  ].map(cell).join(','))
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n'
}
