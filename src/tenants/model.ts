import { z } from 'zod'
import { ROLES } from '../auth/tokens.ts'

/** How a club reaches its commerce backend (decisions.md section 5); baseUrl falls back to COMMERCE_URL or the embedded one. */
export const commerceSettingsSchema = z.object({
  baseUrl: z.url().optional(),
  publishableKey: z.string().min(1),
  regionId: z.string().min(1),
  salesChannelId: z.string().min(1),
  stockLocationId: z.string().min(1),
  adminEmail: z.string().min(1),
  adminPassword: z.string().min(1),
})
export type CommerceSettings = z.infer<typeof commerceSettingsSchema>

export const tenantSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/),
  name: z.string().min(1),
  locale: z.enum(['es', 'en']),
  currency: z.string().length(3),
  plan: z.object({ maxActiveCrops: z.number().int().min(0) }),
  commerce: commerceSettingsSchema.optional(),
})
export type Tenant = z.infer<typeof tenantSchema>

/** Staff directory entry: who a staff login is and where. Passwords live only in the commerce backend. */
export const staffSchema = z.object({
  id: z.string().min(1),
  email: z.email(),
  name: z.string().min(1),
  role: z.enum(ROLES),
  tenants: z.array(z.string()).min(1),
})
export type Staff = z.infer<typeof staffSchema>
