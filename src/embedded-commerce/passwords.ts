import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

// Password hashes: scrypt with a random salt, stored as scrypt$N$r$p$salt$hash (base64url).
const PARAMS = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

function derive (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => err ? reject(err) : resolve(key))
  })
}

export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, PARAMS)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

// A hash to compare against when the email is unknown, so that a miss takes as long as a wrong password.
let decoy: Promise<string> | undefined

export async function verifyPassword (password: string, stored: string | undefined): Promise<boolean> {
  const encoded = stored ?? await (decoy ??= hashPassword(randomBytes(16).toString('hex')))
  const [scheme, n, r, p, salt, hash] = encoded.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected)
}
