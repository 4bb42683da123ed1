// npm run club -- create|update|list|show: provisions and changes clubs (src/club/cli.ts says how).
import type { FastifyInstance } from 'fastify'
import { createUpstreamSessionStore } from '../src/commerce/sessions.ts'
import { parseCommand, USAGE, UsageError, type Command } from '../src/club/cli.ts'
import { medusaSetupAt } from '../src/club/medusa-setup.ts'
import { createOneUseTokens } from '../src/club/one-use-tokens.ts'
import { createClub, exitCodeOf, shownClub, updateClub, type OperatorDeps, type OperatorResult } from '../src/club/operator.ts'
import type { CommerceSetup } from '../src/club/provision.ts'
import { StaffService } from '../src/club/staff.ts'
import { buildCommerceBackend } from '../src/embedded-commerce/backend.ts'
import { embeddedSetup } from '../src/embedded-commerce/provision.ts'
import { createCommerceStore } from '../src/embedded-commerce/store/index.ts'
import { ConfigError, loadConfig, type Config } from '../src/config.ts'
import { AppError } from '../src/errors.ts'
import { CommerceClient } from '../src/commerce/client.ts'
import { commerceAccessAt } from '../src/commerce/access.ts'
import { createRedis } from '../src/plugins/redis.ts'
import { RedisTenantStore } from '../src/tenants/store.ts'

const out = (line: string): void => { process.stdout.write(`${line}\n`) }
const err = (line: string): void => { process.stderr.write(`${line}\n`) }

async function run (command: Exclude<Command, { kind: 'help' }>, config: Config): Promise<void> {
  if (!config.redisUrl) throw new UsageError('REDIS_URL is required: clubs are kept in Redis')
  const redis = createRedis(config.redisUrl, config.redisKeyPrefix)
  await redis.connect()
  const tenants = new RedisTenantStore(redis)
  const client = new CommerceClient(config.commerce.timeoutMs)
  let backend: FastifyInstance | undefined
  try {
    if (command.kind === 'list') {
      const clubs = await tenants.list()
      if (command.json) out(JSON.stringify(clubs.map(shownClub), null, 2))
      else for (const t of clubs) out(`${t.id}\t${t.name}\t${t.locale}\t${t.timeZone}\t${t.currency}`)
      return
    }
    if (command.kind === 'show') {
      const tenant = await tenants.get(command.id)
      if (!tenant) throw new AppError('NOT_FOUND', `Club ${command.id} not found`)
      out(JSON.stringify(shownClub(tenant), null, 2))
      return
    }
    let baseUrl = config.commerce.url
    let setup: CommerceSetup
    if (baseUrl) {
      const { adminEmail, adminPassword } = config.commerce
      if (!adminEmail || !adminPassword) throw new UsageError('COMMERCE_URL needs COMMERCE_ADMIN_EMAIL and COMMERCE_ADMIN_PASSWORD (a Medusa admin login)')
      setup = medusaSetupAt(client, baseUrl, adminEmail, adminPassword)
    } else {
      // The embedded backend keeps its data in the same Redis: provision its store directly, and serve it on a
      // loopback port for the calls every backend gets over HTTP (the first admin's invite).
      setup = embeddedSetup({ store: createCommerceStore(redis), jwtSecret: config.jwtSecret })
      backend = await buildCommerceBackend({ redis, jwtSecret: config.jwtSecret, seed: false })
      await backend.listen({ host: '127.0.0.1', port: 0 })
      const address = backend.server.address()
      baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    }
    const access = commerceAccessAt(baseUrl, client, createUpstreamSessionStore(redis))
    const deps: OperatorDeps = {
      tenants,
      setup,
      staff: new StaffService({ tenants, access, tokens: createOneUseTokens(redis) }),
      progress: (line) => { if (!command.json) out(`  ${line}`) },
    }
    const result = command.kind === 'create'
      ? await createClub(deps, command.spec, command.admin)
      : await updateClub(deps, command.id, command.changes, command.admin)
    report(command, result)
  } finally {
    await backend?.close()
    await client.close()
    redis.disconnect()
  }
}

function report (command: Command & { kind: 'create' | 'update' }, result: OperatorResult): void {
  if (command.json) {
    out(
      JSON.stringify(
        {
          club: shownClub(result.tenant), changed: result.changed, ...(result.invite ? { invite: { ...result.invite.invite, token: result.invite.token } } : {})
        },
        null, 2
      )
    )
    return
  }
  const t = result.tenant
  out(
    command.kind === 'create'
      ? `created club ${t.id} (${t.name})`
      : result.changed.length > 0 ? `updated club ${t.id}: ${result.changed.join(', ')}` : `club ${t.id}: nothing to change`
  )
  if (result.invite) {
    const { invite, token } = result.invite
    out(`admin invite for ${invite.email} (valid until ${invite.expiresAt}), hand it over privately:`)
    out(`  invite token: ${token}`)
    out('  they set their password with POST /api/staff/invites/accept {"token": "...", "password": "..."}')
  }
}

async function main (): Promise<number> {
  let command: Command
  try {
    command = parseCommand(process.argv.slice(2))
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    err(`club: ${e.message}\n`)
    err(USAGE)
    return 2
  }
  if (command.kind === 'help') {
    out(USAGE)
    return 0
  }
  try {
    await run(command, loadConfig())
    return 0
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      err(`club: ${e.message}`)
      return 2
    }
    if (e instanceof AppError) {
      const fields = e.details?.errors ? Object.entries(e.details.errors as Record<string, string[]>).map(([f, m]) => `\n  ${f}: ${m.join('; ')}`).join('') : ''
      err(`club: ${e.message}${fields}`)
      return exitCodeOf(e)
    }
    err(`club: ${(e as Error).message}`)
    return 1
  }
}

process.exitCode = await main()
