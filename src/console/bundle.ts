import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

// The console is built from console/ by esbuild in memory, once per process, on its first request (and by
// `npm run build`, which prints the size): no generated file is committed or needed before `npm start`.

// From src/console/ under tsx, or from dist/src/console/ once compiled (npm run build): console/ is at the top.
const CONSOLE_ROOT = ['../../console/', '../../../console/'].map((up) => fileURLToPath(new URL(up, import.meta.url)))
  .find((dir) => existsSync(`${dir}src/main.tsx`)) ?? fileURLToPath(new URL('../../console/', import.meta.url))
/** The bound on what the first visit downloads, gzip-compressed. */
export const FIRST_LOAD_BUDGET = 300 * 1024

interface ConsoleFile {
  body: Buffer
  gzip: Buffer
  type: string
  /** Content-hashed assets never change under their name; index.html does. */
  immutable: boolean
}

export interface ConsoleBundle {
  /** By path under /console/: `index.html`, `assets/main-<hash>.js`, ... */
  files: Map<string, ConsoleFile>
  /** index.html and everything it loads, gzip-compressed. */
  firstLoadGzip: number
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
}
const typeOf = (path: string): string => TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream'
const file = (body: Buffer, path: string, immutable: boolean): ConsoleFile => ({ body, gzip: gzipSync(body, { level: 9 }), type: typeOf(path), immutable })

export async function buildConsole (): Promise<ConsoleBundle> {
  const result = await build({
    absWorkingDir: CONSOLE_ROOT,
    entryPoints: ['src/main.tsx'],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    entryNames: 'assets/[name]-[hash]',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  })
  const files = new Map<string, ConsoleFile>()
  for (const out of result.outputFiles) {
    const path = out.path.slice(out.path.lastIndexOf('/out/') + 5)
    files.set(path, file(Buffer.from(out.contents), path, true))
  }
  const asset = (ext: string): string => {
    const path = [...files.keys()].find((p) => p.endsWith(ext))
    if (!path) throw new Error(`the console build made no ${ext} file`)
    return `/console/${path}`
  }
  const html = (await readFile(`${CONSOLE_ROOT}index.html`, 'utf8')).replace('%SCRIPT%', asset('.js')).replace('%STYLE%', asset('.css'))
  files.set('index.html', file(Buffer.from(html), 'index.html', false))
  let firstLoadGzip = 0
  for (const f of files.values()) firstLoadGzip += f.gzip.length
  return { files, firstLoadGzip }
}

let once: Promise<ConsoleBundle> | undefined
/** The bundle of this process, built at the first call; a failed build is tried again at the next. */
export async function consoleBundle (): Promise<ConsoleBundle> {
  once ??= buildConsole().catch((err: unknown) => { once = undefined; throw err })
  return await once
}
