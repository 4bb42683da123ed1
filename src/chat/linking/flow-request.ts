import { z } from 'zod'
import { BUSINESS_SCOPED_ID } from '../provider/identity.ts'

// POST /api/chat/flow-endpoint's body (spec, Chat integration), plus the provider's health check.
// Accepted shapes, in order:
// - ping: `action: "ping"` at the top level or inside `data_exchange` (any case); nothing else is required;
// - exchange: `{source, data_exchange: {version?, screen, action?, flow_token, data?}, signature_valid}`.
//   `action` defaults to data_exchange; INIT and BACK answer the club list and COMPLETE answers SUCCESS, so
//   they need no screen; a data exchange names CLUB_SELECT or LOGIN.

export const FORM_SCREENS = ['CLUB_SELECT', 'LOGIN'] as const
type FormScreen = typeof FORM_SCREENS[number]
const ACTIONS = ['INIT', 'BACK', 'DATA_EXCHANGE', 'COMPLETE'] as const
type FlowAction = typeof ACTIONS[number]

export type FlowRequest =
  | { kind: 'ping', signatureValid: boolean | undefined }
  | { kind: 'exchange', action: Exclude<FlowAction, 'DATA_EXCHANGE'>, phone: string, data: Record<string, unknown>, signatureValid: boolean }
  | { kind: 'exchange', action: 'DATA_EXCHANGE', screen: FormScreen, phone: string, data: Record<string, unknown>, signatureValid: boolean }

// The flow_token is the conversation's address: the member's phone in E.164 digits (a leading + is tolerated and
// dropped), or the business-scoped user id of a member without a phone number, verbatim.
const PHONE = /^\+?[1-9][0-9]{5,14}$/
const isAddressToken = (token: string): boolean => PHONE.test(token) || BUSINESS_SCOPED_ID.test(token)

const isString = (v: unknown): v is string => typeof v === 'string'
const required = (issue: { input: unknown }, what: string): string => issue.input === undefined ? 'Required' : `Expected ${what}`

const exchangeSchema = z.looseObject({
  version: z.string().optional(),
  screen: z.string({ error: (i) => required(i, 'a string') }).optional(),
  action: z.string({ error: (i) => required(i, 'a string') }).optional(),
  flow_token: z.string({ error: (i) => required(i, 'a string') }).refine(
    isAddressToken, 'Must be the phone number in E.164 digits or a business-scoped user id'
  ).optional(),
  data: z.record(z.string(), z.unknown(), { error: (i) => required(i, 'an object') }).optional(),
}, { error: (i) => required(i, 'an object') })

export const flowRequestSchema = z.looseObject({
  action: z.string().optional().describe('"ping" for the provider\'s health check'),
  source: z.string({ error: (i) => required(i, 'a string') }).optional(),
  data_exchange: exchangeSchema.optional(),
  signature_valid: z.boolean({ error: (i) => required(i, 'a boolean') }).optional(),
}, { error: 'Expected a JSON object' }).transform((body, ctx): FlowRequest => {
  const x = body.data_exchange
  if ([body.action, x?.action].some((a) => isString(a) && a.toLowerCase() === 'ping')) {
    return { kind: 'ping', signatureValid: body.signature_valid }
  }
  const missing = (path: PropertyKey[]): void => { ctx.addIssue({ code: 'custom', path, message: 'Required', input: undefined }) }
  if (body.source === undefined) missing(['source'])
  if (body.signature_valid === undefined) missing(['signature_valid'])
  if (!x) {
    missing(['data_exchange'])
    return z.NEVER
  }
  if (x.flow_token === undefined) missing(['data_exchange', 'flow_token'])
  const action = (x.action ?? 'DATA_EXCHANGE').toUpperCase() as FlowAction
  if (!ACTIONS.includes(action)) {
    ctx.addIssue({
      code: 'custom', path: ['data_exchange', 'action'], message: `Unknown action ${x.action}: expected ${ACTIONS.join(', ')} or ping`, input: x.action
    })
  }
  const screen = x.screen as FormScreen
  if (action === 'DATA_EXCHANGE' && !FORM_SCREENS.includes(screen)) {
    ctx.addIssue({
      code: 'custom',
      path: ['data_exchange', 'screen'],
      message: x.screen === undefined ? 'Required' : `Unknown screen ${x.screen}: expected ${FORM_SCREENS.join(' or ')}`,
      input: x.screen
    })
  }
  if (ctx.issues.length > 0 || !isString(x.flow_token) || body.signature_valid === undefined) return z.NEVER
  const common = { kind: 'exchange' as const, phone: x.flow_token.replace(/^\+/, ''), data: x.data ?? {}, signatureValid: body.signature_valid }
  return action === 'DATA_EXCHANGE' ? { ...common, action, screen } : { ...common, action }
})
