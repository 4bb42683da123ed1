import type { FastifyInstance } from 'fastify'
import { Histogram } from 'prom-client'
import type { UpstreamSessionStore } from './sessions.ts'
import type { Tenant } from '../tenants/model.ts'
import { CommerceClient } from './client.ts'
import { Medusa } from './medusa.ts'
import { resolveSettings, type TenantsFile } from './settings.ts'

/** What the orders and accounts routes share: one client, each club's backend, and the upstream logins. */
export interface CommerceAccess {
  client: CommerceClient
  sessions: UpstreamSessionStore
  medusaFor (tenant: Tenant): Medusa
}

export function commerceAccess (app: FastifyInstance, file: TenantsFile, sessions: UpstreamSessionStore): CommerceAccess {
  const latency = new Histogram({
    name: 'club_commerce_request_duration_seconds',
    help: 'Calls to the commerce backend until its answer\'s headers, by club (- when made for several), method and status (error: no answer)',
    labelNames: ['club', 'method', 'status'],
    registers: [app.metrics],
  })
  const client = new CommerceClient(app.config.commerce.timeoutMs, ({ seconds, ...labels }) => latency.observe(labels, seconds), app.log)
  app.addHook('onClose', async () => { await client.close() })
  return {
    client,
    sessions,
    // Resolved per call: a club's record, and so its commerce settings, may change while the service runs.
    medusaFor: (tenant) => new Medusa(client.forClub(tenant.id), resolveSettings(tenant, file, app.commerceUrl)),
  }
}

/** Access outside the app (the operator's command): every club's backend at `baseUrl` unless its record says otherwise. */
export function commerceAccessAt (baseUrl: string, client: CommerceClient, sessions: UpstreamSessionStore): CommerceAccess {
  return { client, sessions, medusaFor: (tenant) => new Medusa(client, resolveSettings(tenant, {}, baseUrl)) }
}
