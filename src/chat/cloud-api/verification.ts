import { createHash, timingSafeEqual } from 'node:crypto'

// Meta's webhook verification handshake: when the webhook's URL is set (and now and then after), Meta calls it with
// GET `hub.mode=subscribe`, `hub.verify_token` (the token configured on both sides) and `hub.challenge`, and
// expects the challenge back as the body of a 200. Anything else is refused.

export interface VerificationQuery {
  'hub.mode'?: string
  'hub.verify_token'?: string
  'hub.challenge'?: string
}

// hashed first so that the compare is constant-time whatever the lengths
const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/** The challenge to answer, or undefined when the call is not a subscription with the configured token. */
export function verificationChallenge (query: VerificationQuery, verifyToken: string): string | undefined {
  const token = query['hub.verify_token']
  const challenge = query['hub.challenge']
  if (query['hub.mode'] !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || challenge === '') return undefined
  return timingSafeEqual(digest(token), digest(verifyToken)) ? challenge : undefined
}
