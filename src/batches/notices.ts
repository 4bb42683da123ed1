import type { NotifyInput } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'
import type { Batch } from './model.ts'

// What a member who received a recalled batch is told, in the club's language. It is information, never promotion.

const WORDS = {
  es: {
    title: 'Retiro de un lote',
    body: (n: string, strain: string, reason: string) =>
      `El club retiró el lote ${n} (${strain}) que recibiste. Motivo: ${reason}. No lo consumas y devolvelo en el club, o escribinos para saber qué hacer.`,
  },
  en: {
    title: 'Batch recall',
    body: (n: string, strain: string, reason: string) =>
      `The club recalled batch ${n} (${strain}), which you received. Reason: ${reason}. Do not use it; bring it back to the club, ` +
        'or write to us to ask what to do.',
  },
}

export function recallNotice (tenant: Tenant, batch: Batch, memberId: string): NotifyInput {
  const words = WORDS[tenant.locale]
  return {
    tenantId: tenant.id,
    recipientId: memberId,
    recipientRole: 'member',
    domain: 'products',
    event: 'batch.recalled',
    title: words.title,
    body: words.body(batch.batchNumber, batch.strain.name, batch.recall?.reason ?? ''),
    severity: 'warning',
    source: 'event',
    resourceId: batch.batchNumber,
    resourceType: 'batch',
    metadata: { batchNumber: batch.batchNumber },
    externalId: `batch.recalled:${batch.batchNumber}`,
  }
}
