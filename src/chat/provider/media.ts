import { EXTENSION } from './status-events.ts'

// Messages that are not text or a choice. Members in the clubs' countries talk in voice notes: the provider's v2
// payloads carry a transcript of an audio message in its extension object, which the bot takes as what the member
// said (the history keeps that it was a voice note). Everything else gets a short answer of its own, never silence.

export const MEDIA_KINDS = ['audio', 'image', 'video', 'document', 'location', 'sticker', 'reaction', 'contacts', 'other'] as const
export type MediaKind = typeof MEDIA_KINDS[number]

export type MediaContent =
  /** a voice note with the provider's transcript: the member said `text` */
  | { kind: 'voice', text: string }
  | { kind: 'media', media: MediaKind }

const MAX_TRANSCRIPT = 4096
const KNOWN = new Set<string>(MEDIA_KINDS)

/** The transcript's text: `{text}` in the provider's payloads, a bare string tolerated; blank is none. */
function transcriptOf (extension: unknown): string | undefined {
  if (typeof extension !== 'object' || extension === null) return undefined
  const transcript = (extension as { transcript?: unknown }).transcript
  const text = typeof transcript === 'string' ? transcript : (transcript as { text?: unknown } | null | undefined)?.text
  if (typeof text !== 'string') return undefined
  const trimmed = text.trim().slice(0, MAX_TRANSCRIPT)
  return trimmed === '' ? undefined : trimmed
}

/**
 * What a message of a type other than text, interactive and button says. `voice` (Meta's type for a voice note
 * in some payloads) counts as audio.
 */
export function mediaContent (message: { type: string } & Record<string, unknown>): MediaContent {
  const type = message.type === 'voice' ? 'audio' : message.type
  if (type === 'audio') {
    const text = transcriptOf(message[EXTENSION])
    if (text !== undefined) return { kind: 'voice', text }
  }
  return { kind: 'media', media: KNOWN.has(type) ? type as MediaKind : 'other' }
}
