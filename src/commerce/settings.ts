import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { commerceSettingsSchema, type CommerceSettings, type Tenant } from '../tenants/model.ts'

/** A club's commerce settings with the base URL resolved. */
export type ResolvedSettings = CommerceSettings & { baseUrl: string }

// COMMERCE_TENANTS_FILE: { "<tenantId>": {baseUrl, publishableKey, regionId, salesChannelId, stockLocationId, adminEmail, adminPassword} }
const tenantsFileSchema = z.record(z.string().min(1), commerceSettingsSchema.strict())
export type TenantsFile = z.infer<typeof tenantsFileSchema>

export class TenantsFileError extends Error {
  override name = 'TenantsFileError'
}

/** Parses the file's text; the error names the tenant and the field (never a value: the file holds passwords). */
export function parseTenantsFile (text: string, source = 'COMMERCE_TENANTS_FILE'): TenantsFile {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new TenantsFileError(`${source} is not valid JSON`)
  }
  const parsed = tenantsFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const [tenantId, field] = issue?.path.map(String) ?? []
    const where = tenantId ? `tenant "${tenantId}"${field ? `, field "${field}"` : ''}` : 'the top level'
    throw new TenantsFileError(`${source}: ${where}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}

export async function loadTenantsFile (path: string): Promise<TenantsFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new TenantsFileError(`COMMERCE_TENANTS_FILE ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  return parseTenantsFile(text, `COMMERCE_TENANTS_FILE ${path}`)
}

/** The file wins over the tenant record; the base URL falls back to the service-wide commerce URL. */
export function resolveSettings (tenant: Tenant, file: TenantsFile, defaultBaseUrl: string | undefined): ResolvedSettings {
  const settings = file[tenant.id] ?? tenant.commerce
  const baseUrl = settings?.baseUrl ?? defaultBaseUrl
  if (!settings || !baseUrl) throw new AppError('BACKEND_ERROR', `Club ${tenant.id} has no commerce backend configured`)
  return { ...settings, baseUrl: baseUrl.replace(/\/+$/, '') }
}
