import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto'
import { isIP } from 'node:net'
import { z } from 'zod'

// One schema for the environment (every variable is in .env.example), parsed once into a frozen object.
const optionalString = z.string().trim().min(1).optional()
const port = z.coerce.number().int().min(0).max(65535)

// proxy-addr's names for address ranges, which Fastify's trustProxy takes beside addresses and CIDR ranges
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])
const proxyEntry = (entry: string): boolean => {
  if (PROXY_RANGES.has(entry) || isIP(entry) !== 0) return true
  const [address = '', bits, extra] = entry.split('/')
  const family = isIP(address)
  return family !== 0 && extra === undefined && bits !== undefined && /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)
}
/**
 * The proxies whose X-Forwarded-For is believed: their addresses or CIDR ranges, comma-separated, or a number of
 * hops. A hop count is handed to Fastify as a number: the same digits as a string would be read as an address
 * and trust nothing.
 */
const trustProxySchema = z.string().trim().transform((v, ctx): number | string[] => {
  if (/^\d+$/.test(v)) return Number(v)
  const list = v.split(',').map((e) => e.trim()).filter(Boolean)
  if (list.length === 0 || !list.every(proxyEntry)) {
    ctx.addIssue({
      code: 'custom', message: 'must list the proxies\' addresses or CIDR ranges, comma-separated (e.g. 10.0.0.5,10.0.1.0/24), or give a hop count (e.g. 1)'
    })
    return z.NEVER
  }
  return list
})

/** The chat provider's development values: the dev outbox's number and key (docs/chat.md, For tests and tools). */
const DEV_CHAT = { CHAT_API_KEY: 'dev-chat-api-key', CHAT_PHONE_NUMBER_ID: '100000000000001' } as const

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: port.default(3000),
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  // Seeds of a Redis Cluster, `host:port` comma-separated; refused together with REDIS_URL (one or the other).
  REDIS_CLUSTER_NODES: z.string().trim().transform((v) => v.split(',').map((n) => n.trim()).filter(Boolean))
    .refine((list) => list.length > 0, 'must list at least one host:port')
    .refine((list) => list.every((n) => /^[A-Za-z0-9.-]+:\d{1,5}$/.test(n)), 'must list host:port seeds, comma-separated (e.g. 10.0.0.1:7000,10.0.0.2:7000)')
    .transform((list) => list.map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) })))
    .refine((nodes) => nodes.every((n) => n.port >= 1 && n.port <= 65535), 'must give ports between 1 and 65535').optional(),
  // no braces: a Redis Cluster hashes the first {...} of a key name, which must be the key's own tag
  REDIS_KEY_PREFIX: z.string().min(1).regex(/^[^{}]*$/, 'must not contain { or }').default('club:'),
  JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CRON_API_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CHAT_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CHAT_API_KEY: z.string().min(1).default(DEV_CHAT.CHAT_API_KEY),
  CHAT_PHONE_NUMBER_ID: z.string().min(1).default(DEV_CHAT.CHAT_PHONE_NUMBER_ID),
  // the business number as members dial it (digits, country code first): the console's "link my WhatsApp" link
  CHAT_DISPLAY_NUMBER: z.string().regex(/^[1-9]\d{5,14}$/, 'digits of the number, country code first (e.g. 5491122334455)').optional(),
  CHAT_FLOW_ID: z.string().min(1).default('dev-login-flow'),
  CHAT_BUSINESS_ACCOUNT_ID: z.string().min(1).default('dev-business-account'),
  CHAT_API_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  // partner: the messaging provider between the service and Meta; cloud-api: Meta's Cloud API directly (docs/chat.md)
  CHAT_PROVIDER: z.enum(['partner', 'cloud-api']).default('partner'),
  CHAT_APP_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CHAT_VERIFY_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // PEM; a one-line value may write its line breaks as \n
  CHAT_FLOWS_PRIVATE_KEY: optionalString,
  CHAT_FLOWS_PRIVATE_KEY_PASSPHRASE: optionalString,
  CHAT_SHARDS: z.coerce.number().int().min(1).max(16_384).default(64),
  CHAT_SEND_HORIZON_MS: z.coerce.number().int().min(1000).default(24 * 60 * 60_000),
  CHAT_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  CHAT_LEASE_MS: z.coerce.number().int().min(500).max(300_000).default(2_000),
  CHAT_TURN_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
  // a send is in hand while it waits for its turn of the pace (up to 64 asked at once): a commit that finds the lane
  // full leaves its reply to a take and a pace ask of their own, two more Redis writes (docs/performance.md)
  CHAT_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(128),
  CHAT_SEND_RATE: z.coerce.number().int().min(1).max(1_000).default(80),
  CHAT_HISTORY_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
  CHAT_HISTORY_MAX: z.coerce.number().int().min(10).max(10_000).default(500),
  CHAT_HANDOFF_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(15 * 60_000),
  // off: a web instance (webhooks and the API only); the chat's turns and sends run on the instances with it on
  CHAT_LANES: z.enum(['on', 'off']).default('on'),
  // fault-suite only: kill -9 this process at a named point of the pipeline (never set in production)
  CHAT_CRASH_AT: z.string().regex(/^(turn-before-commit|send-before-ack):\d+$/).optional(),
  COMMERCE_URL: z.url({ protocol: /^https?$/ }).optional(),
  COMMERCE_TENANTS_FILE: optionalString,
  COMMERCE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  COMMERCE_PORT: port.default(0),
  COMMERCE_ADMIN_EMAIL: optionalString,
  COMMERCE_ADMIN_PASSWORD: optionalString,
  CATALOG_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  ORDERS_SETTLE_AFTER_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  SEED: z.enum(['demo', 'none']).optional(),
  RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
  REMINDERS_SCHEDULE: z.enum(['on', 'off']).default('off'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: port.optional(),
  // Browser origins allowed to call the API cross-origin, comma-separated; none (the default) turns CORS off.
  TRUST_PROXY: trustProxySchema.optional(),
  CORS_ORIGINS: z.string().trim().transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s,]+$/, 'must list origins such as https://app.example.org (scheme and host, no path)'))).optional(),
})

/** Every variable read (.env.example lists each; a test holds them together). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape)

export interface Config {
  readonly env: 'development' | 'production' | 'test'
  readonly port: number
  readonly host: string
  readonly logLevel: string
  readonly redisUrl: string | undefined
  /** Seeds of a Redis Cluster (REDIS_CLUSTER_NODES); when set, redisUrl is unset. */
  readonly redisClusterNodes: ReadonlyArray<{ readonly host: string, readonly port: number }> | undefined
  readonly redisKeyPrefix: string
  readonly jwtSecret: string
  readonly cronApiSecret: string
  readonly chat: {
    readonly webhookSecret: string
    readonly apiKey: string
    readonly phoneNumberId: string
    /** The business number members write to, in digits (CHAT_DISPLAY_NUMBER), for the console's wa.me link. */
    readonly displayNumber: string | undefined
    readonly flowId: string
    readonly businessAccountId: string
    readonly apiBaseUrl: string | undefined
    /** Who is between the service and the members: the messaging provider (`partner`) or Meta's Cloud API itself. */
    readonly provider: 'partner' | 'cloud-api'
    /** Meta's settings, with `provider: cloud-api` only. */
    readonly cloud: CloudApiConfig | undefined
    readonly shards: number
    readonly sendHorizonMs: number
    readonly sendTimeoutMs: number
    readonly leaseMs: number
    readonly turnConcurrency: number
    readonly sendConcurrency: number
    /** Messages a second sent from the business number, over all instances (the provider's tier: 80 to 1,000). */
    readonly sendRate: number
    readonly historyDays: number
    readonly historyMax: number
    readonly handoffTimeoutMs: number
    /**
     * Whether this instance runs the chat's turn and send lanes, the recovery sweep and the handoff timer. Off, it
     * stores what the webhook accepts and announces it to the instances that run them (docs/operations.md).
     */
    readonly lanes: boolean
    readonly crashAt: string | undefined
  }
  readonly commerce: {
    readonly url: string | undefined
    readonly tenantsFile: string | undefined
    readonly timeoutMs: number
    readonly embeddedPort: number
    /** The Medusa admin login `npm run club` provisions with, and stores for the clubs it makes. */
    readonly adminEmail: string | undefined
    readonly adminPassword: string | undefined
    /** How old the bot's copy of a club's catalog may get (0: read it from the backend every time). */
    readonly catalogCacheMs: number
    /**
     * A cart completion interrupted (its answer lost, its process killed) is read back this long after it was
     * asked for, and the unsettled ones are looked at this often.
     */
    readonly settleAfterMs: number
  }
  readonly seed: 'demo' | 'none'
  readonly rateLimit: { readonly max: number, readonly windowMs: number }
  readonly bodyLimit: number
  readonly remindersSchedule: boolean
  /** /metrics: Bearer token required when set; served on its own port instead of the API's when `port` is set. */
  readonly metrics: { readonly token: string | undefined, readonly port: number | undefined }
  /** Origins allowed by CORS; empty means CORS is off. */
  readonly corsOrigins: readonly string[]
  /**
   * Fastify's trustProxy: false (the peer is the client), the trusted proxies' addresses and ranges, or a hop count.
   * The client address it gives counts against the rate limit and is logged.
   */
  readonly trustProxy: false | number | readonly string[]
  /** Secrets made up for this process because none were configured (development only). */
  readonly generatedSecrets: readonly string[]
  /** The chat provider's variables left at their development values (the bot's replies reach no member). */
  readonly devChatProvider: readonly string[]
}

export interface CloudApiConfig {
  /** The app secret: `X-Hub-Signature-256` of the webhook and of the login form's data endpoint. */
  readonly appSecret: string
  /** The token Meta's verification handshake must present. */
  readonly verifyToken: string
  /** The business's private key for the login form's Flows encryption. */
  readonly flowsPrivateKey: KeyObject
}

/** Meta's Graph API, whose messages endpoint takes the same bodies as the provider's. */
export const GRAPH_API_BASE_URL = 'https://graph.facebook.com/v23.0'

export class ConfigError extends Error {
  override name = 'ConfigError'
}

const SECRETS = ['JWT_SECRET', 'CRON_API_SECRET', 'CHAT_WEBHOOK_SECRET'] as const

/** With Meta directly, its secret, its handshake's token and the form's private key are required, in any environment. */
function cloudApiConfig (env: z.output<typeof envSchema>): CloudApiConfig {
  const missing = (['CHAT_APP_SECRET', 'CHAT_VERIFY_TOKEN', 'CHAT_FLOWS_PRIVATE_KEY'] as const).filter((name) => !env[name])
  if (missing.length > 0) throw new ConfigError(`Invalid configuration: CHAT_PROVIDER=cloud-api needs ${missing.join(', ')}`)
  let flowsPrivateKey: KeyObject
  try {
    flowsPrivateKey = createPrivateKey({ key: (env.CHAT_FLOWS_PRIVATE_KEY ?? '').replaceAll('\\n', '\n'), passphrase: env.CHAT_FLOWS_PRIVATE_KEY_PASSPHRASE })
  } catch {
    // the key's text never goes into the message
    throw new ConfigError('Invalid configuration: CHAT_FLOWS_PRIVATE_KEY is not a readable PEM private key (or its passphrase is wrong)')
  }
  if (flowsPrivateKey.asymmetricKeyType !== 'rsa') throw new ConfigError('Invalid configuration: CHAT_FLOWS_PRIVATE_KEY must be an RSA key')
  return Object.freeze({ appSecret: env.CHAT_APP_SECRET ?? '', verifyToken: env.CHAT_VERIFY_TOKEN ?? '', flowsPrivateKey })
}

/** Production starts only with its own secrets, each different, on Redis, and without the demo accounts. */
function refuseUnsafeProduction (env: z.output<typeof envSchema>): void {
  const missing = [...SECRETS.filter((name) => !env[name]), ...(env.REDIS_URL || env.REDIS_CLUSTER_NODES ? [] : ['REDIS_URL (or REDIS_CLUSTER_NODES)'])]
  if (missing.length > 0) throw new ConfigError(`Invalid configuration: production needs ${missing.join(', ')}`)
  if (env.SEED === 'demo') throw new ConfigError('Invalid configuration: SEED=demo is refused in production (its accounts have published passwords)')
  // One leaked secret must not open what another guards (tokens, the reminder job, the chat webhook).
  SECRETS.forEach((name, i) => {
    const same = SECRETS.slice(i + 1).find((other) => env[other] === env[name])
    if (same) throw new ConfigError(`Invalid configuration: ${name} and ${same} must differ in production`)
  })
}

/** Parses the environment; throws ConfigError with one line naming the variable that is wrong. */
export function loadConfig (source: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, as a shell's `VAR=` means.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = envSchema.safeParse(cleaned)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const name = issue?.path.join('.') ?? 'environment'
    throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}`)
  }
  const env = parsed.data
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES) {
    throw new ConfigError(
      'Invalid configuration: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both'
    )
  }
  if (env.REDIS_CLUSTER_NODES && !env.COMMERCE_URL) {
    // The embedded backend's scripts touch keys of many records at once, which a cluster spreads over its nodes.
    throw new ConfigError(
      'Invalid configuration: the embedded commerce backend does not run on a Redis Cluster; with REDIS_CLUSTER_NODES set COMMERCE_URL to a Medusa backend'
    )
  }
  if (env.CHAT_LANES === 'off' && !env.REDIS_URL && !env.REDIS_CLUSTER_NODES) {
    // the in-memory stores are this process's own: no other instance could take the turns it accepts
    throw new ConfigError('Invalid configuration: CHAT_LANES=off needs REDIS_URL (or REDIS_CLUSTER_NODES) shared with instances running CHAT_LANES=on')
  }
  if (env.NODE_ENV === 'production') refuseUnsafeProduction(env)
  const cloud = env.CHAT_PROVIDER === 'cloud-api' ? cloudApiConfig(env) : undefined
  const generatedSecrets: string[] = []
  const secret = (name: typeof SECRETS[number]): string => {
    const value = env[name]
    if (value) return value
    generatedSecrets.push(name)
    return randomBytes(32).toString('hex')
  }
  return Object.freeze({
    env: env.NODE_ENV,
    port: env.PORT,
    // Development listens on loopback unless told otherwise: it runs with demo accounts and made-up secrets.
    host: env.HOST ?? (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    logLevel: env.LOG_LEVEL,
    redisUrl: env.REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES && Object.freeze(env.REDIS_CLUSTER_NODES.map((n) => Object.freeze(n))),
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    jwtSecret: secret('JWT_SECRET'),
    cronApiSecret: secret('CRON_API_SECRET'),
    chat: Object.freeze({
      webhookSecret: secret('CHAT_WEBHOOK_SECRET'),
      apiKey: env.CHAT_API_KEY,
      phoneNumberId: env.CHAT_PHONE_NUMBER_ID,
      displayNumber: env.CHAT_DISPLAY_NUMBER,
      flowId: env.CHAT_FLOW_ID,
      businessAccountId: env.CHAT_BUSINESS_ACCOUNT_ID,
      apiBaseUrl: env.CHAT_API_BASE_URL ?? (cloud ? GRAPH_API_BASE_URL : undefined),
      provider: env.CHAT_PROVIDER,
      cloud,
      shards: env.CHAT_SHARDS,
      sendHorizonMs: env.CHAT_SEND_HORIZON_MS,
      sendTimeoutMs: env.CHAT_SEND_TIMEOUT_MS,
      leaseMs: env.CHAT_LEASE_MS,
      turnConcurrency: env.CHAT_TURN_CONCURRENCY,
      sendConcurrency: env.CHAT_SEND_CONCURRENCY,
      sendRate: env.CHAT_SEND_RATE,
      historyDays: env.CHAT_HISTORY_DAYS,
      historyMax: env.CHAT_HISTORY_MAX,
      handoffTimeoutMs: env.CHAT_HANDOFF_TIMEOUT_MS,
      lanes: env.CHAT_LANES === 'on',
      crashAt: env.CHAT_CRASH_AT,
    }),
    commerce: Object.freeze({
      url: env.COMMERCE_URL,
      tenantsFile: env.COMMERCE_TENANTS_FILE,
      timeoutMs: env.COMMERCE_TIMEOUT_MS,
      embeddedPort: env.COMMERCE_PORT,
      adminEmail: env.COMMERCE_ADMIN_EMAIL,
      adminPassword: env.COMMERCE_ADMIN_PASSWORD,
      catalogCacheMs: env.CATALOG_CACHE_MS,
      settleAfterMs: env.ORDERS_SETTLE_AFTER_MS,
    }),
    seed: env.SEED ?? (env.REDIS_URL || env.REDIS_CLUSTER_NODES ? 'none' : 'demo'),
    rateLimit: Object.freeze({ max: env.RATE_LIMIT_MAX, windowMs: env.RATE_LIMIT_WINDOW_MS }),
    bodyLimit: env.BODY_LIMIT_BYTES,
    remindersSchedule: env.REMINDERS_SCHEDULE === 'on',
    metrics: Object.freeze({ token: env.METRICS_TOKEN, port: env.METRICS_PORT }),
    corsOrigins: Object.freeze(env.CORS_ORIGINS ?? []),
    trustProxy: typeof env.TRUST_PROXY === 'object' ? Object.freeze(env.TRUST_PROXY) : env.TRUST_PROXY ?? false,
    generatedSecrets: Object.freeze(generatedSecrets),
    devChatProvider: Object.freeze([
      ...(env.CHAT_API_BASE_URL === undefined && !cloud ? ['CHAT_API_BASE_URL'] : []),
      ...(['CHAT_API_KEY', 'CHAT_PHONE_NUMBER_ID'] as const).filter((name) => env[name] === DEV_CHAT[name]),
    ]),
  })
}

/** For entry points: the config, or one line on stderr naming what is wrong and exit code 1. */
export function loadConfigOrExit (): Config {
  try {
    return loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  }
}
