// Every Redis key name of the service, in one place. The client's keyPrefix (REDIS_KEY_PREFIX) is added by
// ioredis, so a Lua script must only touch keys it receives in KEYS.
export const keys = {
  tenants: {
    all: () => 'tenants',
    one: (tenantId: string) => `tenant:${tenantId}`,
  },
  staff: {
    byEmail: (email: string) => `staff:${email.toLowerCase()}`,
  },
  crops: {
    // crop ids of a tenant, scored by creation time
    index: (tenantId: string) => `t:${tenantId}:crops`,
    one: (tenantId: string, cropId: string) => `t:${tenantId}:crop:${cropId}`,
    active: (tenantId: string) => `t:${tenantId}:crops:active`,
    plants: (tenantId: string, cropId: string) => `t:${tenantId}:crop:${cropId}:plants`,
    plantCodes: (tenantId: string, cropId: string) => `t:${tenantId}:crop:${cropId}:plant-codes`,
    harvests: (tenantId: string, cropId: string) => `t:${tenantId}:crop:${cropId}:harvests`,
    batchSeq: (tenantId: string) => `t:${tenantId}:harvest-batch-seq`,
    catalog: (tenantId: string, kind: 'strains' | 'spaces' | 'lights') => `t:${tenantId}:catalog:${kind}`,
  },
  commerce: {
    // the embedded commerce backend keeps all its keys under this root
    root: () => 'commerce:',
  },
  orders: {
    idempotency: (tenantId: string, key: string) => `t:${tenantId}:orders:idem:${key}`,
    upstreamToken: (tenantId: string, subject: string) => `t:${tenantId}:orders:upstream-token:${subject}`,
  },
  notifications: {
    root: () => 'notif:',
  },
  chat: {
    root: () => 'chat:',
  },
  rateLimit: () => 'rate-limit:',
} as const
