import { constants, createDeflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib'

// How the Redis store keeps a session document (machines/conversation.session.ts owns its shape; the store only
// packs it): `~` then the base64 of its raw DEFLATE with a preset dictionary of the document's field names,
// states and usual option ids. A linked member's document of about 500 bytes is then about 80 (about 10 µs of
// CPU to pack, 5 µs to unpack). Documents stored before (JSON as it is, starting with '{') read as they are.

const PACKED = '~'

// Frozen with PACKED: a document is inflated with the dictionary it was deflated with, so a change here needs
// another prefix (and this one kept for the documents already stored). Most-used words last (nearest).
const DICTIONARY = Buffer.from([
  '"product":{"id":"prod_","title":"","variants":[{"id":"variant_","title":"","price":0,"stock":null}]},"selectedVariantId":"variant_",',
  '"cartId":"cart_","query":"","wanted":1,"pending":{"kind":"clearCart"},{"kind":"unlink"},{"kind":"editLine","variantId":"variant_"}',
  '"cart":[{"variantId":"variant_","productId":"prod_","title":"","quantity":1,"unitPrice":0}],',
  'AWAITING_LINK_CODE","AWAITING_TENANT_SELECTION","BROWSING_PRODUCTS","AWAITING_QUANTITY","VIEWING_CART","CONFIRMING_ORDER',
  '"options":["products:more","products:first","cart:checkout","cart:browse","cart:edit","cart:clear","cart:all","line:remove","order:confirm",' +
    '"order:cancel","confirm:yes","confirm:no","tenant:club-","variant:variant_","line:variant_","product:prod_"],',
  '"options":["link:login","link:code"],"shown":["prod_"],"catalogOffset":0,"catalogCount":0}',
  ',"updates":false,"locale":"en"}',
  '{"machineVersion":2,"state":"UNLINKED","phone":"',
  '"accounts":[{"tenantId":"club-","tenantName":"Club ","name":"","role":"member","linkedAt":17,"expiresAt":17,"locale":"es"}],"linkFailures":0,',
  '"options":["menu:browse","menu:cart","menu:repeat","menu:orders","menu:notifications","menu:crops","menu:switch-club","menu:updates-off",' +
    '"menu:updates-on","menu:person","menu:language","menu:unlink"],"shown":[],"catalogOffset":0,"catalogCount":0}',
  '{"machineVersion":2,"state":"MAIN_MENU","phone":"","tenantId":"club-","cart":[],"lastActivity":17',
].join(''))

/**
 * A 4 KB window (and a hash table to match) holds the dictionary and a whole document, so the output is the same
 * as with zlib's default 32 KB (the same bytes for 11,394 documents of random conversations), while each call
 * sets up a tenth of the memory. Documents are inflated with the default window, which reads both.
 */
const DEFLATE = { dictionary: DICTIONARY, windowBits: 12, memLevel: 4 }

/**
 * Half of what `deflateRawSync` costs for a document is Node building a stream and a zlib state for the call and
 * freeing them after. One deflater is kept instead and reset for each document (a reset sets the dictionary again),
 * driven the way Node's own synchronous calls drive it: its handle's `writeSync` and `_writeState`, which are not
 * public API. So it is used only after it packed a document exactly as `deflateRawSync` does, when the module loads,
 * and only for documents whose output is sure to fit its buffer (deflate grows nothing by more than a few bytes a
 * 16 KB block); anything else goes through `deflateRawSync`. Deflating a whole buffer into room enough cannot fail.
 */
interface Deflater { reset (): void, writeSync (flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void }
const KEPT_MAX_INPUT = 16 * 1024
const OUT = Buffer.alloc(2 * KEPT_MAX_INPUT)

function keptDeflater (stream: object): ((input: Buffer) => string) | undefined {
  const { _handle: handle, _writeState: state } = stream as { _handle?: Partial<Deflater>, _writeState?: unknown }
  if (typeof handle?.reset !== 'function' || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array)) return undefined
  const deflater = handle as Deflater
  const pack = (input: Buffer): string => {
    deflater.reset()
    deflater.writeSync(constants.Z_FINISH, input, 0, input.length, OUT, 0, OUT.length)
    // what is left of the output buffer is the first of the two counts the handle writes back
    return OUT.toString('base64', 0, OUT.length - (state[0] ?? OUT.length))
  }
  try {
    const probe = Buffer.from('{"machineVersion":2,"state":"MAIN_MENU","phone":"5491100000001","tenantId":"club-norte","cart":[]}')
    return pack(probe) === deflateRawSync(probe, DEFLATE).toString('base64') ? pack : undefined
  } catch {
    return undefined
  }
}

/** Held here for as long as the process runs: its handle is the deflater. */
const keptStream = createDeflateRaw(DEFLATE)
const kept = keptDeflater(keptStream)

export function packSession (doc: string): string {
  const input = Buffer.from(doc)
  return PACKED + (kept && input.length <= KEPT_MAX_INPUT ? kept(input) : deflateRawSync(input, DEFLATE).toString('base64'))
}

export function unpackSession (stored: string): string {
  return stored.startsWith(PACKED) ? inflateRawSync(Buffer.from(stored.slice(PACKED.length), 'base64'), { dictionary: DICTIONARY }).toString('utf8') : stored
}
