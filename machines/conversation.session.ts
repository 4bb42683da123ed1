import { createActor, type AnyActorScope, type SnapshotFrom, type transition } from 'xstate'
import { z } from 'zod'
import { conversationMachine } from './conversation.machine.ts'
import { CONVERSATION_STATES, MACHINE_VERSION, type ConversationContext, type ConversationEvent, type ConversationState } from './conversation.types.ts'

// The persisted Conversation session (spec) plus what the machine needs to resume, tagged with the machine
// version. Only settled states are stored (no actors, no timers), so restoring never re-runs an effect.

export type ConversationSnapshot = SnapshotFrom<typeof conversationMachine>
export type ConversationStep = ReturnType<typeof transition<typeof conversationMachine>>

/**
 * XState's `transition()` builds a whole actor for every call, and with it the machine's initial context from no
 * input (which throws, to be caught and kept as the actor's error: a stack trace per step). The chart spawns no
 * actor, schedules no delayed event and emits nothing, so one inert scope, made once, serves every step: it only
 * collects the actions a step hands back. Steps are synchronous, so they never share the collector.
 */
const self = createActor(conversationMachine, { input: { phone: '', at: 0 } })
/** Where the step under way collects its actions. */
let collected: ConversationStep[1] | undefined
const scope: AnyActorScope = {
  self,
  id: '',
  sessionId: '',
  system: self.system,
  logger: () => {},
  defer: () => {},
  emit: () => {},
  stopChild: () => {},
  actionExecutor: (action) => { collected?.push(action as ConversationStep[1][number]) },
}

/** The machine's pure transition, as XState's `transition()`: the next snapshot and the actions to perform. */
export function stepConversation (snapshot: ConversationSnapshot, event: ConversationEvent): ConversationStep {
  const actions: ConversationStep[1] = []
  collected = actions
  try {
    return [conversationMachine.transition(snapshot, event, scope), actions]
  } finally {
    collected = undefined
  }
}

const variant = z.object({ id: z.string(), title: z.string(), price: z.number(), stock: z.number().nullable() })
const product = z.object({ id: z.string(), title: z.string(), variants: z.array(variant) })
const cartItem = z.object({ variantId: z.string(), productId: z.string(), title: z.string(), quantity: z.number().int().positive(), unitPrice: z.number() })
const account = z.object({
  tenantId: z.string(),
  tenantName: z.string(),
  name: z.string(),
  role: z.enum(['member', 'grower', 'admin']),
  linkedAt: z.number(),
  expiresAt: z.number(),
  locale: z.enum(['es', 'en']).optional(),
  updates: z.boolean().optional(),
})
const pending = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('clearCart') }),
  z.object({ kind: z.literal('unlink') }),
  z.object({ kind: z.literal('editLine'), variantId: z.string() }),
])

/** The current version's record: the reference the quick reader is held to. */
export const storedSession = z.object({
  machineVersion: z.literal(MACHINE_VERSION),
  phone: z.string(),
  state: z.enum(CONVERSATION_STATES),
  tenantId: z.string().optional(),
  product: product.optional(),
  selectedVariantId: z.string().optional(),
  cart: z.array(cartItem),
  cartId: z.string().optional(),
  lastActivity: z.number(),
  accounts: z.array(account),
  linkFailures: z.number().int().min(0),
  options: z.array(z.string()),
  shown: z.array(z.string()).default([]),
  catalogOffset: z.number().int().min(0),
  catalogCount: z.number().int().min(0),
  query: z.string().optional(),
  wanted: z.number().int().min(0).optional(),
  pending: pending.optional(),
})
type StoredSession = z.infer<typeof storedSession>

// The quick reader of a stored session: each turn restores one, and zod's parse of `storedSession` cost more than the
// rest of the restore. It checks the current version's rules by hand and copies what the schema keeps, in its key
// order (the context's keys are encoded again in that order), a key given as undefined kept as zod keeps it; anything
// else (another version, a damaged record) goes to the schemas below as before. test/machines/session-quick.test.ts
// holds it to `storedSession`'s own answer.
type Doc = Record<string, unknown>
const isDoc = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v)
const isString = (v: unknown): v is string => typeof v === 'string'
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0
const STATES: ReadonlySet<unknown> = new Set(CONVERSATION_STATES)
const ROLES: ReadonlySet<unknown> = new Set(['member', 'grower', 'admin'])
/** Not a session the quick reader is sure of. */
class NotSure extends Error {}
const notSure = new NotSure()
const sure = <T>(ok: boolean, value: T): T => { if (ok) return value; throw notSure }
/** A fresh array of the items read (by index, as zod reads one: a hole is an undefined item). */
function list<T> (v: unknown, read: (item: unknown) => T): T[] {
  const items = sure(Array.isArray(v), v as unknown[])
  const out: T[] = []
  for (let i = 0; i < items.length; i++) out.push(read(items[i]))
  return out
}
const str = (v: unknown): string => sure(isString(v), v as string)
/** An optional key as zod answers it: absent stays absent, given as undefined stays undefined, else checked. */
function optional<T> (doc: Doc, key: string, read: (v: unknown) => T, into: Doc): void {
  if (!(key in doc)) return
  const v = doc[key]
  into[key] = v === undefined ? undefined : read(v)
}
const quickVariant = (v: unknown) => {
  const d = sure(isDoc(v), v as Doc)
  return sure(isString(d.id) && isString(d.title) && isNumber(d.price) && (d.stock === null || isNumber(d.stock)),
    { id: d.id as string, title: d.title as string, price: d.price as number, stock: d.stock as number | null })
}
const quickProduct = (v: unknown) => {
  const d = sure(isDoc(v), v as Doc)
  return sure(isString(d.id) && isString(d.title), { id: d.id as string, title: d.title as string, variants: list(d.variants, quickVariant) })
}
const quickCartItem = (v: unknown) => {
  const d = sure(isDoc(v), v as Doc)
  const { variantId, productId, title, quantity, unitPrice } = d
  const positive = Number.isSafeInteger(quantity) && (quantity as number) > 0
  return sure(isString(variantId) && isString(productId) && isString(title) && positive && isNumber(unitPrice),
    { variantId, productId, title, quantity, unitPrice } as ConversationContext['cart'][number])
}
const quickAccount = (v: unknown) => {
  const d = sure(isDoc(v), v as Doc)
  const { tenantId, tenantName, name, role, linkedAt, expiresAt } = d
  const account: Doc = sure(isString(tenantId) && isString(tenantName) && isString(name) && ROLES.has(role) && isNumber(linkedAt) && isNumber(expiresAt),
    { tenantId, tenantName, name, role, linkedAt, expiresAt })
  optional(d, 'locale', (l) => sure(l === 'es' || l === 'en', l), account)
  optional(d, 'updates', (u) => sure(typeof u === 'boolean', u), account)
  return account as unknown as ConversationContext['accounts'][number]
}
const quickPending = (v: unknown): ConversationContext['pending'] => {
  const d = sure(isDoc(v), v as Doc)
  if (d.kind === 'clearCart' || d.kind === 'unlink') return { kind: d.kind }
  return sure(d.kind === 'editLine' && isString(d.variantId), { kind: 'editLine', variantId: d.variantId as string })
}

/** `storedSession.safeParse(json)`'s data when the quick reader is sure of it, else undefined. */
export function quickSession (json: unknown): StoredSession | undefined {
  if (!isDoc(json) || json.machineVersion !== MACHINE_VERSION) return undefined
  try {
    const d = json
    const out: Doc = { machineVersion: MACHINE_VERSION, phone: str(d.phone), state: sure(STATES.has(d.state), d.state) }
    optional(d, 'tenantId', str, out)
    optional(d, 'product', quickProduct, out)
    optional(d, 'selectedVariantId', str, out)
    out.cart = list(d.cart, quickCartItem)
    optional(d, 'cartId', str, out)
    out.lastActivity = sure(isNumber(d.lastActivity), d.lastActivity)
    out.accounts = list(d.accounts, quickAccount)
    out.linkFailures = sure(isCount(d.linkFailures), d.linkFailures)
    out.options = list(d.options, str)
    out.shown = d.shown === undefined ? [] : list(d.shown, str)
    out.catalogOffset = sure(isCount(d.catalogOffset), d.catalogOffset)
    out.catalogCount = sure(isCount(d.catalogCount), d.catalogCount)
    optional(d, 'query', str, out)
    optional(d, 'wanted', (w) => sure(isCount(w), w), out)
    optional(d, 'pending', quickPending, out)
    return out as StoredSession
  } catch (err) {
    if (err === notSure) return undefined
    throw err
  }
}

/**
 * A session of machine version 1, which kept the last page of products whole: it resumes where it was. While
 * browsing it keeps the ids of that page and the one product being chosen from; elsewhere nothing of it.
 */
const storedV1 = storedSession.omit({ machineVersion: true, product: true, shown: true }).extend({
  machineVersion: z.literal(1),
  selectedProductId: z.string().optional(),
  catalog: z.array(product),
})

const BROWSING: ReadonlySet<ConversationState> = new Set(['BROWSING_PRODUCTS', 'AWAITING_QUANTITY'])

function fromV1 (v1: z.infer<typeof storedV1>): StoredSession {
  const { machineVersion: _version, selectedProductId, catalog, ...rest } = v1
  if (!BROWSING.has(v1.state)) {
    return {
      ...rest, machineVersion: MACHINE_VERSION, shown: [], catalogOffset: 0, catalogCount: 0, query: undefined, selectedVariantId: undefined, wanted: undefined
    }
  }
  const product = catalog.find((p) => p.id === selectedProductId)
  return { ...rest, machineVersion: MACHINE_VERSION, shown: catalog.map((p) => p.id), ...(product ? { product } : {}) }
}

/** What an unreadable or older session can still give: the club and the cart, when they parse. */
const salvage = z.object({
  tenantId: z.string().optional(),
  cart: z.array(cartItem).optional(),
  cartId: z.string().optional(),
  lastActivity: z.number().optional(),
}).loose()

export function freshSession (phone: string, at: number): ConversationSnapshot {
  return conversationMachine.getInitialSnapshot(scope, { phone, at })
}

export function encodeSession (snapshot: ConversationSnapshot): string {
  const doc: StoredSession = { machineVersion: MACHINE_VERSION, state: snapshot.value as ConversationState, ...snapshot.context }
  return JSON.stringify(doc)
}

function resolve (state: ConversationState, context: ConversationContext): ConversationSnapshot {
  return conversationMachine.resolveState({ value: state, context })
}

export type Restored = { snapshot: ConversationSnapshot, migrated: boolean }

/**
 * The session as the machine can resume it. A session of another machine version, or one that does not parse,
 * is reset to a safe state: MAIN_MENU with its club and cart when it had them (the next input re-checks the
 * link), else UNLINKED. Never throws.
 */
export function restoreSession (raw: string | undefined, phone: string, at: number): Restored {
  if (raw === undefined) return { snapshot: freshSession(phone, at), migrated: false }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { snapshot: freshSession(phone, at), migrated: true }
  }
  const current = quickSession(json) ?? storedSession.safeParse(json).data
  if (current !== undefined) {
    const { machineVersion: _version, state, ...context } = current
    return { snapshot: resolve(state, context), migrated: false }
  }
  const v1 = storedV1.safeParse(json)
  if (v1.success) {
    const { machineVersion: _version, state, ...context } = fromV1(v1.data)
    return { snapshot: resolve(state, context), migrated: true }
  }
  const old = salvage.safeParse(json)
  const fresh = freshSession(phone, at).context
  if (!old.success || !old.data.tenantId) return { snapshot: freshSession(phone, at), migrated: true }
  return {
    snapshot: resolve('MAIN_MENU', {
      ...fresh,
      tenantId: old.data.tenantId,
      cart: old.data.cart ?? [],
      cartId: old.data.cartId,
      lastActivity: old.data.lastActivity ?? at,
    }),
    migrated: true,
  }
}
