import { parseArgs } from 'node:util'
import { signAccessToken } from '../src/auth/tokens.ts'
import { ROLES, type Role } from '../src/tenants/roles.ts'
import { loadConfig } from '../src/config.ts'

// Operators' way to a Bearer token: npm run token -- --role admin --tenant club-norte
const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'admin' },
    tenant: { type: 'string', multiple: true },
    sub: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    ttl: { type: 'string', default: '3600' },
  },
})

const role = values.role as Role
if (!ROLES.includes(role)) {
  process.stderr.write(`--role must be one of ${ROLES.join(', ')}\n`)
  process.exit(2)
}
const tenants = values.tenant ?? []
if (tenants.length === 0) {
  process.stderr.write('--tenant <id> is required (repeat it for several)\n')
  process.exit(2)
}
const ttl = Number(values.ttl)
if (!Number.isInteger(ttl) || ttl <= 0) {
  process.stderr.write('--ttl must be a positive number of seconds\n')
  process.exit(2)
}
const config = loadConfig()
if (config.generatedSecrets.includes('JWT_SECRET')) {
  process.stderr.write('JWT_SECRET is not set: this token will only work with a server started with the same JWT_SECRET\n')
}
const token = await signAccessToken(config.jwtSecret, {
  sub: values.sub ?? `cli-${role}`,
  role,
  tenants,
  email: values.email,
  name: values.name ?? `CLI ${role}`,
}, ttl)
process.stdout.write(`${token}\n`)
