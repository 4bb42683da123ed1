import { collectionAmounts, collectionStatus } from '../calc.ts'
import type { Payment, PaymentCollection, PaymentSession } from '../model.ts'

function sessionView (s: PaymentSession, collectionId: string) {
  return {
    id: s.id,
    currency_code: s.currency_code,
    provider_id: s.provider_id,
    data: s.data,
    context: {},
    status: s.status,
    authorized_at: s.authorized_at,
    payment_collection_id: collectionId,
    payment: null,
    metadata: {},
    created_at: s.created_at,
    updated_at: s.updated_at,
    deleted_at: null,
    amount: s.amount,
  }
}

function paymentView (p: Payment, collectionId: string) {
  return {
    id: p.id,
    currency_code: p.currency_code,
    provider_id: p.provider_id,
    data: {},
    metadata: null,
    captured_at: p.captured_at,
    canceled_at: p.canceled_at,
    payment_collection_id: collectionId,
    payment_session: { id: p.payment_session_id },
    payment_session_id: p.payment_session_id,
    created_at: p.created_at,
    updated_at: p.updated_at,
    deleted_at: null,
    amount: p.amount,
    captures: p.captures.map((c) => ({
      id: c.id,
      payment_id: p.id,
      metadata: null,
      created_by: c.created_by,
      created_at: c.created_at,
      updated_at: c.created_at,
      deleted_at: null,
      amount: c.amount
    })),
    refunds: p.refunds.map((r) => ({
      id: r.id,
      payment_id: p.id,
      metadata: null,
      created_by: r.created_by,
      created_at: r.created_at,
      updated_at: r.created_at,
      deleted_at: null,
      amount: r.amount,
      note: null
    })),
  }
}

/** What the capture route answers (capture.json). */
export function capturedPaymentView (p: Payment, collectionId: string) {
  return {
    id: p.id,
    currency_code: p.currency_code,
    amount: p.amount,
    captured_at: p.captured_at,
    payment_collection_id: collectionId,
    payment_session_id: p.payment_session_id,
    captures: p.captures.map((c) => ({ id: c.id, amount: c.amount })),
    refunds: p.refunds.map((r) => ({ id: r.id, amount: r.amount })),
  }
}

/** The store's short form, answered by the payment-collection routes (pc.json, ps.json). */
export function collectionShortView (pc: PaymentCollection) {
  return { id: pc.id, currency_code: pc.currency_code, amount: pc.amount, payment_sessions: pc.payment_sessions.map((s) => sessionView(s, pc.id)) }
}

export function collectionView (pc: PaymentCollection, withAmounts: boolean) {
  const amounts = collectionAmounts(pc)
  const hasPayments = withAmounts || pc.payments.length > 0
  return {
    id: pc.id,
    currency_code: pc.currency_code,
    completed_at: pc.completed_at,
    status: collectionStatus(pc),
    metadata: pc.metadata,
    created_at: pc.created_at,
    updated_at: pc.updated_at,
    deleted_at: null,
    amount: pc.amount,
    authorized_amount: hasPayments ? amounts.authorized_amount : null,
    captured_amount: hasPayments ? amounts.captured_amount : null,
    refunded_amount: hasPayments ? amounts.refunded_amount : null,
    payment_sessions: pc.payment_sessions.map((s) => sessionView(s, pc.id)),
    payments: pc.payments.map((p) => paymentView(p, pc.id)),
  }
}
