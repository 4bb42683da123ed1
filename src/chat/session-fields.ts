import type { Locale } from '../../machines/conversation.types.ts'

// What the pipeline reads of a saved session document beside the machine (the worker's dead letters, the handoff
// gate, the staff inbox): a few fields, read without restoring the machine. An unreadable document reads as empty.

export interface SessionFields {
  tenantId?: string
  state?: string
  /** The reply ids the last message offered (unchecked: the document is stored data). */
  options?: unknown
  accounts?: Array<{ tenantId: string, tenantName: string, locale?: Locale }>
}

export function sessionFields (doc: string | undefined): SessionFields {
  try { return doc ? JSON.parse(doc) as SessionFields : {} } catch { return {} }
}
