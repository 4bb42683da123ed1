// The provider delivers free text only within 24 hours of the member's last message; after that only a template.
// Order updates choose text or template by it, and staff replies are refused outside it.

const REPLY_WINDOW_MS = 24 * 60 * 60_000

export function insideReplyWindow (lastInboundAt: number | undefined, now: number): boolean {
  return lastInboundAt !== undefined && now - lastInboundAt < REPLY_WINDOW_MS
}
