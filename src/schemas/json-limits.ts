import { z } from 'zod'
import { AppError } from '../errors.ts'

// Bounds on free-form JSON from outside. Parsing, validating, copying or storing (Lua cjson) a deeply nested
// value recurses once per level, so depth is refused before anything recurses: by a linear scan of the text
// for whole bodies, and by an iterative walk for a free-form field (notification metadata).

/** No request body nests deeper than this; the deepest fixed shape of the API is far below it. */
export const MAX_BODY_DEPTH = 32

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The deepest nesting of objects and arrays in a JSON text (brackets inside strings do not count). One pass, no recursion. */
function jsonTextDepth (text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      deepest = Math.max(deepest, ++depth)
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return deepest
}

/** Refuses a body text nested deeper than MAX_BODY_DEPTH with 400 VALIDATION_ERROR, before it is parsed. */
export function refuseDeepJson (text: string): void {
  if (jsonTextDepth(text) > MAX_BODY_DEPTH) {
    throw new AppError('VALIDATION_ERROR', `JSON body nested deeper than ${MAX_BODY_DEPTH} levels`, {
      details: { errors: { _: [`At most ${MAX_BODY_DEPTH} levels of nesting`] } }
    })
  }
}

/** Depth of a parsed value (a scalar is 0, `{}` is 1), walked with an explicit stack; stops once past `limit`. */
function valueDepth (value: unknown, limit: number): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number]
    if (v === null || typeof v !== 'object') continue
    deepest = Math.max(deepest, d + 1)
    if (deepest > limit) return deepest
    for (const child of Object.values(v)) stack.push([child, d + 1])
  }
  return deepest
}

/** A free-form JSON object bounded in nesting depth and serialized size (UTF-8 bytes). */
export function boundedJsonObject (limits: { maxDepth: number, maxBytes: number }) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (valueDepth(value, limits.maxDepth) > limits.maxDepth) {
      ctx.addIssue({ code: 'custom', message: `At most ${limits.maxDepth} levels of nesting` })
      return
    }
    if (Buffer.byteLength(JSON.stringify(value)) > limits.maxBytes) {
      ctx.addIssue({ code: 'custom', message: `At most ${limits.maxBytes} bytes as JSON` })
    }
  })
}
