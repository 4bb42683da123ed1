import type { Call } from '../crops/client.ts'
import { newCrop } from '../crops/client.ts'

/** A crop harvested, dried and stocked with `dryWeight` grams through the crops API; answers its batch number. */
export async function stockedBatch (call: Call, dryWeight: number, crop: Record<string, unknown> = {}): Promise<{
  batchNumber: string, cropId: string, harvestId: string
}> {
  const cropId = await newCrop(call, { status: 'FLOWERING', ...crop })
  const harvested = await call('POST', `/api/crops/${cropId}/harvest`, { wetWeight: dryWeight * 4 })
  if (harvested.status !== 201) throw new Error(`harvest failed: ${harvested.status} ${JSON.stringify(harvested.body)}`)
  const { id: harvestId, batchNumber } = harvested.body.harvest
  for (const body of [{ dryWeight, status: 'CURING' }, { status: 'STOCKED' }]) {
    const res = await call('PATCH', `/api/crops/${cropId}/harvest/${harvestId}`, body)
    if (res.status !== 200) throw new Error(`harvest patch failed: ${res.status} ${JSON.stringify(res.body)}`)
  }
  return { batchNumber, cropId, harvestId }
}

/** Lab values through the API; fails loudly when refused. */
export async function withLab (call: Call, batchNumber: string, thcPercent = 18.5, cbdPercent = 0.4): Promise<void> {
  const res = await call('POST', `/api/batches/${batchNumber}/lab-results`, { thcPercent, cbdPercent, reportRef: 'LAB-2026-0042' })
  if (res.status !== 201) throw new Error(`lab failed: ${res.status} ${JSON.stringify(res.body)}`)
}

/** A product of two variants in grams, of the strain stockedBatch's crops are of by default. */
export const FLOWERS = {
  title: 'Flores Gelato',
  strain: 'strain_norte_gelato',
  variants: [{ title: '5 g', gramsPerUnit: 5, price: 25000 }, { title: '10 g', gramsPerUnit: 10, price: 45000, sku: 'GEL-10' }],
}
