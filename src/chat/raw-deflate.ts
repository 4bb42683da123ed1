import type { Transform } from 'node:stream'
import { constants, createDeflateRaw, createInflateRaw, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib'

// Raw DEFLATE with a preset dictionary for the small records a turn writes (the session, the history entry).
//
// Most of what `deflateRawSync` and `inflateRawSync` cost for such a record is Node building a stream and a zlib
// state for the call and freeing them after (an unpack of a session: about 6 µs of set-up around 0.5 of
// inflating). So a codec keeps one deflater and one inflater and resets them for each record (a reset sets the
// dictionary again), driven the way Node's own synchronous calls drive them: the handle's `writeSync` and the
// `_writeState` it answers in, which are not public API. They are used only once each has deflated and inflated a
// probe exactly as the public calls do, when the codec is made; a record whose result does not fit the buffer, or
// that errs (a damaged record), goes through the public call, which answers or throws as it always did.

interface ZlibHandle {
  reset (): void
  writeSync (flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void
}

class KeptZlib {
  private stream!: Transform
  private handle!: ZlibHandle
  private state!: Uint32Array
  private readonly out = Buffer.alloc(64 * 1024)

  constructor (private readonly make: () => Transform) { this.open() }

  /** Whether the handle is there to drive, as this version of Node has it. */
  get usable (): boolean { return typeof this.handle?.reset === 'function' && typeof this.handle.writeSync === 'function' && this.state instanceof Uint32Array }

  /** What `input` becomes in one go (valid until the next call), or undefined when the public call must do it. */
  run (input: Buffer): Buffer | undefined {
    this.handle.reset()
    this.handle.writeSync(constants.Z_FINISH, input, 0, input.length, this.out, 0, this.out.length)
    // an error destroyed the stream and closed its handle: the next record gets a new one
    if (this.stream.destroyed) {
      this.open()
      return undefined
    }
    const outLeft = this.state[0] ?? 0
    return this.state[1] === 0 && outLeft > 0 ? this.out.subarray(0, this.out.length - outLeft) : undefined
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

export interface RawDeflate {
  /** The record deflated: valid until this codec's next call (copy it or encode it at once). */
  deflate (input: Buffer): Buffer
  /** The record inflated: valid until this codec's next call. Throws as `inflateRawSync` does on a damaged one. */
  inflate (input: Buffer): Buffer
}

/** A codec with these options (`dictionary` in both), checked against the public calls on `probe`. */
export function rawDeflate (deflateOptions: ZlibOptions, inflateOptions: ZlibOptions, probe: string): RawDeflate {
  const engines = kept(deflateOptions, inflateOptions, Buffer.from(probe))
  return {
    deflate: (input) => engines?.deflater.run(input) ?? deflateRawSync(input, deflateOptions),
    inflate: (input) => engines?.inflater.run(input) ?? inflateRawSync(input, inflateOptions),
  }
}

function kept (deflateOptions: ZlibOptions, inflateOptions: ZlibOptions, probe: Buffer): { deflater: KeptZlib, inflater: KeptZlib } | undefined {
  try {
    const deflater = new KeptZlib(() => createDeflateRaw(deflateOptions))
    const inflater = new KeptZlib(() => createInflateRaw(inflateOptions))
    if (!deflater.usable || !inflater.usable) return undefined
    const packed = deflateRawSync(probe, deflateOptions)
    return deflater.run(probe)?.equals(packed) === true && inflater.run(packed)?.equals(probe) === true ? { deflater, inflater } : undefined
  } catch {
    return undefined
  }
}
