import { remainingUnits, type ActorRef, type Batch, type Dispensation, type Packaging } from './model.ts'

// Every change of a batch's grams as a pure function: where they come from, where they go. The service runs these
// inside the store's compare-and-set; the property test (test/batches/books.property.test.ts) runs any sequence
// of them and checks that no count goes below zero and that the books balance.

/** Grams (mg) asked for but not held: what was asked and what there is. */
export class NotEnough extends Error {
  constructor (readonly heldMg: number, readonly askedMg: number) {
    super('not enough grams in the batch')
  }
}

export class Recalled extends Error {
  constructor (readonly batchNumber: string) {
    super(`batch ${batchNumber} was recalled`)
  }
}

/** Reserves a packaging's grams from the bulk: pending until the commerce backend has the units. */
export function reservePackaging (batch: Batch, packaging: Packaging): Batch {
  if (batch.recall) throw new Recalled(batch.batchNumber)
  if (batch.bulkMg < packaging.mg) throw new NotEnough(batch.bulkMg, packaging.mg)
  return { ...batch, bulkMg: batch.bulkMg - packaging.mg, packagings: [...batch.packagings, { ...packaging, state: 'pending' }] }
}

/** Gives a pending packaging's grams back to the bulk (the backend refused the units). */
export function releasePackaging (batch: Batch, packagingId: string): Batch {
  const pending = batch.packagings.find((p) => p.id === packagingId && p.state === 'pending')
  if (!pending) return batch
  return { ...batch, bulkMg: batch.bulkMg + pending.mg, packagings: batch.packagings.filter((p) => p !== pending) }
}

/** Puts a pending packaging's units on the shelf. A batch recalled meanwhile takes them straight off sale. */
export function commitPackaging (batch: Batch, packagingId: string, product: { productId: string | null, title: string }): Batch {
  const pending = batch.packagings.find((p) => p.id === packagingId && p.state === 'pending')
  if (!pending) return batch
  const mgPerUnit = pending.mg / pending.units
  const line = batch.shelf.find((l) => l.variantId === pending.variantId && l.mgPerUnit === mgPerUnit)
  const withdrawn = batch.recall ? pending.units : 0
  const shelf = line
    ? batch.shelf.map((l) => l === line ? { ...l, packaged: l.packaged + pending.units, withdrawn: l.withdrawn + withdrawn } : l)
    : [...batch.shelf, { variantId: pending.variantId, ...product, mgPerUnit, packaged: pending.units, dispensed: 0, withdrawn }]
  return { ...batch, shelf, packagings: batch.packagings.map((p) => p === pending ? { ...p, state: 'done' as const } : p) }
}

export function destroy (batch: Batch, destruction: { id: string, mg: number, reason: string, at: string, by: ActorRef }): Batch {
  if (batch.bulkMg < destruction.mg) throw new NotEnough(batch.bulkMg, destruction.mg)
  return { ...batch, bulkMg: batch.bulkMg - destruction.mg, destructions: [...batch.destructions, destruction] }
}

/** One line of a handover as the dispensing record names it: which batch, how many units and grams, THC and CBD. */
export interface DrawnLine {
  dispensationId: string
  batchNumber: string
  variantId: string
  units: number
  mg: number
  thcPercent: number | null
  cbdPercent: number | null
  reversedAt: string | null
}

/** What a handover drew: kept per order, so that a handover retried draws nothing twice and a reversal finds it. */
export interface OrderDraw {
  orderId: string
  memberId: string
  at: string
  lines: DrawnLine[]
  /** Units handed over that no batch had on its shelf (stock typed in by hand in the commerce backend). */
  untraced: Array<{ variantId: string, units: number }>
}

export interface DrawInput {
  orderId: string
  memberId: string
  at: string
  lines: Array<{ variantId: string, units: number }>
}

/**
 * Takes each line's units from the batches' shelves for its variant, the batch expiring first first (ties: the
 * older batch number). Recalled batches give nothing. Units no batch holds are reported untraced, never refused:
 * the handover is decided by the club's rules and the commerce backend's stock, not here.
 */
export function drawOrder (batches: Batch[], input: DrawInput): { batches: Batch[], draw: OrderDraw } {
  const next = batches.map((b) => structuredClone(b))
  const order = [...next].sort((a, b) => Date.parse(a.bestBefore) - Date.parse(b.bestBefore) || a.batchNumber.localeCompare(b.batchNumber))
  const draw: OrderDraw = { orderId: input.orderId, memberId: input.memberId, at: input.at, lines: [], untraced: [] }
  for (const wanted of input.lines) {
    let left = wanted.units
    for (const batch of order) {
      if (left === 0) break
      if (batch.recall) continue
      for (const line of batch.shelf) {
        if (left === 0) break
        if (line.variantId !== wanted.variantId) continue
        const units = Math.min(left, remainingUnits(line))
        if (units <= 0) continue
        line.dispensed += units
        left -= units
        const dispensation: Dispensation = {
          id: `${input.orderId}:${batch.batchNumber}:${wanted.variantId}:${line.mgPerUnit}`,
          orderId: input.orderId,
          memberId: input.memberId,
          variantId: wanted.variantId,
          units,
          mg: units * line.mgPerUnit,
          at: input.at,
          entryId: null,
          reversedAt: null,
        }
        batch.dispensations.push(dispensation)
        draw.lines.push({
          dispensationId: dispensation.id,
          batchNumber: batch.batchNumber,
          variantId: wanted.variantId,
          units,
          mg: dispensation.mg,
          thcPercent: batch.lab?.thcPercent ?? null,
          cbdPercent: batch.lab?.cbdPercent ?? null,
          reversedAt: null,
        })
      }
    }
    if (left > 0) draw.untraced.push({ variantId: wanted.variantId, units: left })
  }
  return { batches: next, draw }
}

/**
 * Undoes a handover's lines of one variant (all when none is named): the units go back to their batch's shelf,
 * or off sale when the batch was recalled meanwhile. A line already reversed stays as it is.
 */
export function undrawOrder (batches: Batch[], draw: OrderDraw, at: string, variantId?: string): { batches: Batch[], draw: OrderDraw } {
  const next = batches.map((b) => structuredClone(b))
  const lines = draw.lines.map((line) => {
    if (line.reversedAt !== null || (variantId !== undefined && line.variantId !== variantId)) return line
    const batch = next.find((b) => b.batchNumber === line.batchNumber)
    const dispensation = batch?.dispensations.find((d) => d.id === line.dispensationId)
    const shelf = batch?.shelf.find((l) => l.variantId === line.variantId && l.mgPerUnit * line.units === line.mg)
    if (!batch || !dispensation || !shelf || dispensation.reversedAt !== null) return line
    dispensation.reversedAt = at
    shelf.dispensed -= line.units
    if (batch.recall) shelf.withdrawn += line.units
    return { ...line, reversedAt: at }
  })
  return { batches: next, draw: { ...draw, lines } }
}

/** Takes every unit still on the shelf off sale and records the recall, with the dispensations it concerns. */
export function recall (batch: Batch, input: { reason: string, at: string, by: ActorRef }): Batch {
  const unitsWithdrawn = batch.shelf.reduce((sum, l) => sum + remainingUnits(l), 0)
  const live = batch.dispensations.filter((d) => d.reversedAt === null)
  return {
    ...batch,
    shelf: batch.shelf.map((l) => ({ ...l, withdrawn: l.withdrawn + remainingUnits(l) })),
    recall: {
      reason: input.reason,
      at: input.at,
      by: input.by,
      unitsWithdrawn,
      offSale: 'stock-to-zero',
      stock: batch.shelf.filter((l) => remainingUnits(l) > 0).map((l) => ({ variantId: l.variantId, units: remainingUnits(l), done: false })),
      dispensationIds: live.map((d) => d.id),
      membersNotified: new Set(live.map((d) => d.memberId)).size,
    },
  }
}
