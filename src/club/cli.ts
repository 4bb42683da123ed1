import { parseArgs } from 'node:util'
import { z } from 'zod'
import type { ClubSpecInput } from '../tenants/spec.ts'

// `npm run club -- <command> [flags]`: the arguments, parsed and checked, free of I/O.

export const USAGE = `Usage: npm run club -- <command> [flags]

Commands:
  create   Provision a new club: its record, its commerce side (region, sales channel, publishable key,
           stock location, pickup and delivery shipping options) and an invite for its first admin.
           Running it again after a failure finishes what was left undone.
  update   Change a club (only the flags given) and finish its commerce side if anything is missing.
  list     List the clubs.
  show     Show one club (the backend password is not shown).

Flags:
  --id <id>                 club id: lower-case letters, digits and dashes (create, update, show)
  --name <name>             display name (create)
  --locale <es|en>          language of the bot and notices (default es)
  --time-zone <zone>        IANA time zone (default America/Argentina/Buenos_Aires)
  --currency <code>         ISO 4217 currency (default ARS)
  --country <code>          ISO 3166 country the club sells in (default ar)
  --max-active-crops <n>    plan limit (default 50)
  --pickup-address <text>   pickup address shown to members
  --pickup-hours <text>     pickup hours shown to members (with --pickup-address)
  --address <line>          stock location address (default: the pickup address)
  --city <city>  --postal-code <code>  --province <name>
  --delivery-price <n>      price of the delivery option, whole currency units (default 0)
  --rules <preset>          dispensing rules: none, de-kcang, uy-club, ar-reprocann, es-csc (create default none;
                            update: replaces the club's rules with the preset's)
  --admin-email <email>     first admin, invited (create: required; update: invites one more)
  --admin-name <name>       the admin's name (default: the email's local part)
  --json                    print the result as JSON
  -h, --help                this text

Environment: REDIS_URL (required), REDIS_KEY_PREFIX; COMMERCE_URL with COMMERCE_ADMIN_EMAIL and
COMMERCE_ADMIN_PASSWORD for a Medusa v2 backend, else the embedded backend in the same Redis.

Exit codes: 0 done, 1 failed (e.g. the backend), 2 bad input, 3 conflict (exists, staff elsewhere), 4 not found.
`

const OPTIONS = {
  id: { type: 'string' },
  name: { type: 'string' },
  locale: { type: 'string' },
  'time-zone': { type: 'string' },
  currency: { type: 'string' },
  country: { type: 'string' },
  'max-active-crops': { type: 'string' },
  'pickup-address': { type: 'string' },
  'pickup-hours': { type: 'string' },
  address: { type: 'string' },
  city: { type: 'string' },
  'postal-code': { type: 'string' },
  province: { type: 'string' },
  'delivery-price': { type: 'string' },
  rules: { type: 'string' },
  'admin-email': { type: 'string' },
  'admin-name': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

const COMMANDS = ['create', 'update', 'list', 'show'] as const
export type Command =
  | { kind: 'help' }
  | { kind: 'list', json: boolean }
  | { kind: 'show', id: string, json: boolean }
  | { kind: 'create', spec: ClubSpecInput, admin: { email: string, name: string }, json: boolean }
  | { kind: 'update', id: string, changes: Partial<ClubSpecInput>, admin?: { email: string, name: string }, json: boolean }

export class UsageError extends Error {
  override name = 'UsageError'
}

function integer (flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number, got "${value}"`)
  return Number(value)
}

/** The command the arguments ask for; UsageError names what is wrong. */
export function parseCommand (argv: string[]): Command {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values: v, positionals } = parsed
  if (v.help) return { kind: 'help' }
  const [command, ...extra] = positionals
  if (!command) throw new UsageError(`a command is required: ${COMMANDS.join(', ')}`)
  if (!(COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown command "${command}": use ${COMMANDS.join(', ')}`)
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`)
  const json = v.json ?? false
  if (command === 'list') return { kind: 'list', json }
  if (!v.id) throw new UsageError(`${command} needs --id`)
  if (command === 'show') return { kind: 'show', id: v.id, json }

  if ((v['pickup-address'] === undefined) !== (v['pickup-hours'] === undefined)) throw new UsageError('--pickup-address and --pickup-hours go together')
  const address = { address_1: v.address, city: v.city, postal_code: v['postal-code'], province: v.province }
  const fields: Partial<ClubSpecInput> = Object.fromEntries(Object.entries({
    name: v.name,
    locale: v.locale as ClubSpecInput['locale'],
    timeZone: v['time-zone'],
    currency: v.currency,
    country: v.country,
    maxActiveCrops: integer('max-active-crops', v['max-active-crops']),
    pickup: v['pickup-address'] !== undefined ? { address: v['pickup-address'], hours: v['pickup-hours'] ?? '' } : undefined,
    address: Object.values(address).some((x) => x !== undefined) ? address : undefined,
    deliveryPrice: integer('delivery-price', v['delivery-price']),
    rules: v.rules as ClubSpecInput['rules'],
  }).filter(([, value]) => value !== undefined))
  const adminEmail = v['admin-email']
  if (adminEmail !== undefined && !z.email().safeParse(adminEmail.trim()).success) throw new UsageError(`--admin-email "${adminEmail}" is not an email address`)
  const admin = adminEmail ? { email: adminEmail.trim().toLowerCase(), name: v['admin-name'] ?? adminEmail.split('@')[0] ?? adminEmail } : undefined
  if (command === 'update') return { kind: 'update', id: v.id, changes: fields, ...(admin ? { admin } : {}), json }
  if (!v.name) throw new UsageError('create needs --name')
  if (!admin) throw new UsageError('create needs --admin-email (the club\'s first admin)')
  return { kind: 'create', spec: { ...fields, id: v.id, name: v.name }, admin, json }
}
