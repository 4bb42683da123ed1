import { constants, createCipheriv, createDecipheriv, privateDecrypt, type KeyObject } from 'node:crypto'

// The login form's data endpoint without an intermediary (Meta's Flows encryption). Each request carries a fresh
// AES-128 key wrapped with the business's RSA public key (RSA-OAEP, SHA-256 and MGF1 SHA-256), the payload
// encrypted with it in AES-128-GCM (the 16-byte tag appended) and the IV, all base64. The answer is encrypted with
// the same key and the IV's bits flipped, tag appended, and sent back as the base64 text. A request that cannot be
// decrypted is answered 421, which makes the app fetch the public key again and retry once.

export const DECRYPTION_FAILED_STATUS = 421
const KEY_BYTES = 16
const TAG_BYTES = 16

interface EncryptedFlowRequest {
  encrypted_flow_data: string
  encrypted_aes_key: string
  initial_vector: string
}

export interface DecryptedFlowRequest {
  payload: unknown
  aesKey: Buffer
  iv: Buffer
}

/** The request could not be read (not the three fields, wrong key, altered data): answer 421, store nothing. */
export class FlowDecryptionError extends Error {
  readonly statusCode = DECRYPTION_FAILED_STATUS
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
function base64Field (body: Record<string, unknown>, name: keyof EncryptedFlowRequest): Buffer {
  const value = body[name]
  if (typeof value !== 'string' || !BASE64.test(value)) throw new FlowDecryptionError(`${name} must be base64`)
  return Buffer.from(value, 'base64')
}

export function decryptFlowRequest (body: unknown, privateKey: KeyObject): DecryptedFlowRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new FlowDecryptionError('the body must be an object')
  const fields = body as Record<string, unknown>
  const wrapped = base64Field(fields, 'encrypted_aes_key')
  const data = base64Field(fields, 'encrypted_flow_data')
  const iv = base64Field(fields, 'initial_vector')
  if (data.length <= TAG_BYTES) throw new FlowDecryptionError('encrypted_flow_data is too short')
  let aesKey: Buffer
  try {
    aesKey = privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, wrapped)
  } catch {
    throw new FlowDecryptionError('the AES key cannot be unwrapped with this private key')
  }
  if (aesKey.length !== KEY_BYTES) throw new FlowDecryptionError('the unwrapped key is not an AES-128 key')
  let plain: Buffer
  try {
    const decipher = createDecipheriv('aes-128-gcm', aesKey, iv, { authTagLength: TAG_BYTES })
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
    plain = Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()])
  } catch {
    throw new FlowDecryptionError('the payload does not decrypt (altered, or another key)')
  }
  try {
    return { payload: JSON.parse(plain.toString('utf8')), aesKey, iv }
  } catch {
    throw new FlowDecryptionError('the decrypted payload is not JSON')
  }
}

/** The answer as Meta wants it: AES-128-GCM under the request's key with the IV's bits flipped, tag appended, base64. */
export function encryptFlowResponse (answer: unknown, aesKey: Buffer, iv: Buffer): string {
  const flipped = Buffer.from(iv.map((byte) => ~byte & 0xff))
  const cipher = createCipheriv('aes-128-gcm', aesKey, flipped, { authTagLength: TAG_BYTES })
  return Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64')
}
