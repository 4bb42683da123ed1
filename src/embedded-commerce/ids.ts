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
