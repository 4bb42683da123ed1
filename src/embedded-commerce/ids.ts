import { randomBytes } from 'node:crypto'

// Medusa's ids: a prefix and a ULID (48-bit time, 80 random bits, Crockford base32), e.g. order_01M7ZB9M562VXDN18E668Y98FY.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

function encodeTime (ms: number): string {
  let out = ''
  let rest = ms
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

function encodeRandom (): string {
  const bytes = randomBytes(16)
  let out = ''
  for (let i = 0; i < 16; i++) out += ALPHABET[(bytes[i] as number) % 32]
  return out
}

export function newId (prefix: string, now = Date.now()): string {
  return `${prefix}_${encodeTime(now)}${encodeRandom()}`
}

/**
 * The embedded backend's ids of a club's commerce setup, derived from the club's id: provisioning twice finds
 * what the first run made, and the demo's ids stay stable for tests and docs.
 */
export function clubSetupIds (tenantId: string) {
  const code = tenantId.replace(/-/g, '_')
  return {
    region: `reg_${code}`,
    salesChannel: `sc_${code}`,
    apiKey: `apk_${code}`,
    publishableKey: `pk_${code}`,
    stockLocation: `sloc_${code}`,
    locationAddress: `laddr_${code}`,
    fulfillmentSet: `fuset_${code}`,
    serviceZone: `serzo_${code}`,
    shippingProfile: `sp_${code}`,
    shippingOption: (name: string) => `so_${code}_${name}`,
    serviceUser: `user_service_${code}`,
  }
}
