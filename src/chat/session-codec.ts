import type { Transform } from 'node:stream'
import { constants, createDeflateRaw, createInflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib'

// How the Redis store keeps a session document (machines/conversation.session.ts owns its shape; the store only
// packs it): `~` then the base64 of its raw DEFLATE with a preset dictionary of the document's field names,
// states and usual option ids. A linked member's document of about 500 bytes is then about 80 (about 6 µs of
// CPU to pack, under 1 µs to unpack, with the kept engines below). Documents stored before (JSON as it is, starting with '{') read as they are.

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
 * Most of what `deflateRawSync` and `inflateRawSync` cost for a document is Node building a stream and a zlib state
 * for the call and freeing them after (an unpack: about 6 µs of set-up around 0.5 of inflating). So one deflater and
 * one inflater are kept and reset for each document (a reset sets the dictionary again), driven the way Node's own
 * synchronous calls drive them: the handle's `writeSync` and the `_writeState` it answers in, which are not public
 * API. They are used only once each has packed or unpacked a probe exactly as the public calls do, when the module
 * loads; a document whose result does not fit the buffer, or that errs (a damaged record), goes through the public
 * call, which answers or throws as it always did.
 */
interface ZlibHandle {
  reset (): void
  writeSync (flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void
}
const OUT = Buffer.alloc(64 * 1024)

class KeptZlib {
  private stream!: Transform
  private handle!: ZlibHandle
  private state!: Uint32Array

  constructor (private readonly make: () => Transform) { this.open() }

  /** Whether the handle is there to drive, as this version of Node has it. */
  get usable (): boolean { return typeof this.handle?.reset === 'function' && typeof this.handle.writeSync === 'function' && this.state instanceof Uint32Array }

  /** What `input` becomes in one go (valid until the next call), or undefined when the public call must do it. */
  run (input: Buffer): Buffer | undefined {
    this.handle.reset()
    this.handle.writeSync(constants.Z_FINISH, input, 0, input.length, OUT, 0, OUT.length)
    // an error destroyed the stream and closed its handle: the next document gets a new one
    if (this.stream.destroyed) {
      this.open()
      return undefined
    }
    const outLeft = this.state[0] ?? 0
    return this.state[1] === 0 && outLeft > 0 ? OUT.subarray(0, OUT.length - outLeft) : undefined
  }

  private open (): void {
    this.stream = this.make()
    // the error of a damaged record is the public call's to throw; here it only closes the handle
    this.stream.on('error', () => {})
    const inner = this.stream as unknown as { _handle: ZlibHandle, _writeState: Uint32Array }
    this.handle = inner._handle
    this.state = inner._writeState
  }
}

const INFLATE = { dictionary: DICTIONARY }
const PROBE = '{"machineVersion":2,"state":"MAIN_MENU","phone":"5491100000001","tenantId":"club-norte","cart":[]}'

function kept (): { deflater: KeptZlib, inflater: KeptZlib } | undefined {
  try {
    const deflater = new KeptZlib(() => createDeflateRaw(DEFLATE))
    const inflater = new KeptZlib(() => createInflateRaw(INFLATE))
    if (!deflater.usable || !inflater.usable) return undefined
    const packed = deflateRawSync(PROBE, DEFLATE)
    const same = deflater.run(Buffer.from(PROBE))?.equals(packed) === true && inflater.run(packed)?.toString('utf8') === PROBE
    return same ? { deflater, inflater } : undefined
  } catch {
    return undefined
  }
}

const engines = kept()

export function packSession (doc: string): string {
  const input = Buffer.from(doc)
  return PACKED + (engines?.deflater.run(input) ?? deflateRawSync(input, DEFLATE)).toString('base64')
}

export function unpackSession (stored: string): string {
  if (!stored.startsWith(PACKED)) return stored
  const input = Buffer.from(stored.slice(PACKED.length), 'base64')
  return (engines?.inflater.run(input) ?? inflateRawSync(input, INFLATE)).toString('utf8')
}
