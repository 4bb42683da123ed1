// What one unit of a variant holds, as the commerce backend describes it: grams (Medusa's `weight`, in grams,
// or `metadata.grams`), THC and CBD percent (`metadata.thc`, `metadata.cbd`). A variant without grams is not a
// controlled product (papers, a grinder): it counts toward no cap and leaves no dispensing record.

export interface Dosage {
  grams: number | null
  thcPercent: number | null
  cbdPercent: number | null
}

/** Medusa's admin keeps metadata values as typed, often strings: "3.5" and 3.5 both count. */
function numberIn (value: unknown, max: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
  return Number.isFinite(n) && n >= 0 && n <= max ? n : null
}

export function dosageOf (variant: { weight?: number | null | undefined, metadata?: Record<string, unknown> | null | undefined }): Dosage {
  const m = variant.metadata ?? {}
  const grams = numberIn(m.grams, 1_000_000) ?? numberIn(variant.weight, 1_000_000)
  return {
    grams: grams !== null && grams > 0 ? grams : null,
    thcPercent: numberIn(m.thc ?? m.thcPercent, 100),
    cbdPercent: numberIn(m.cbd ?? m.cbdPercent, 100),
  }
}

/** Grams as whole milligrams: what the quota adds up (no float drift over a year of small dispensations). */
export const toMg = (grams: number): number => Math.round(grams * 1000)
export const toGrams = (mg: number): number => Math.round(mg) / 1000
