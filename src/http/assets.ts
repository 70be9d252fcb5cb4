/**
 * A service's browser files: TypeScript and CSS entry points bundled by esbuild once at start,
 * under content-hashed names, compressed once each way (gzip and brotli) when first asked for
 * that way, and served with
 * `Cache-Control: public, max-age=31536000, immutable`. Pages and files that must keep their
 * address (a service worker, a manifest) are answered by {@link revalidated}: `no-cache` with an
 * `ETag`, so a browser asks again each time and gets a 304 when nothing changed.
 *
 * ```ts
 * const assets = await bundleAssets({ entries: { app: 'src/notes/app/main.ts', style: 'src/notes/app/app.css' } })
 * assets.url('app')        // '/assets/app-Q3ZK2M7A.js'
 * { method: 'GET', path: '/assets/:file', handler: assets.handler }
 * ```
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build as esbuild, stop as stopEsbuild, type BuildOptions } from 'esbuild'
import type { Headers, Response } from './response.ts'
import { answerRefusal, reason, refuse } from './refusal.ts'

const NOT_FOUND = reason('not_found', 'not found')
import type { Request } from './request.ts'
import { matches } from './conditional.ts'

/** Where the hashed files are served from. */
export const ASSET_PREFIX = '/assets/'

// esbuild works in a child process of its own, which stays (20 to 30 MB resident) until told to
// stop. The services bundle only at start, so it is stopped once no build has run for a second;
// a later build starts a new one.
const IDLE_STOP_MS = 1_000
let building = 0
let stopTimer: ReturnType<typeof setTimeout> | undefined

async function build(options: BuildOptions & { write: false }) {
  building++
  clearTimeout(stopTimer)
  try {
    return await esbuild(options)
  } finally {
    if (--building === 0) {
      stopTimer = setTimeout(() => void stopEsbuild(), IDLE_STOP_MS)
      stopTimer.unref()
    }
  }
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
}

/** One file, kept as it is and compressed both ways. */
export interface CompressedFile {
  readonly type: string
  readonly etag: string
  readonly identity: Uint8Array
  readonly gzip: Uint8Array
  readonly br: Uint8Array
}

export interface Assets {
  /** The served address of an entry (by its name in `entries`) or of an added file. */
  url(name: string): string
  /** Every hashed address, for a service worker to keep. */
  readonly urls: readonly string[]
  /** The compressed size in bytes (brotli) of every file, by address. */
  readonly sizes: Readonly<Record<string, { identity: number; br: number; gzip: number }>>
  /** `GET /assets/:file`. */
  handler(req: Request): Response
}

export interface BundleOptions {
  /** Entry name to file path (.ts or .css); the name becomes the start of the served name. */
  entries: Record<string, string>
  /** Extra files served under hashed names: name (with its extension) to content. */
  files?: Record<string, string | Uint8Array>
  /** Values esbuild puts in place of identifiers (`define`). */
  define?: Record<string, string>
  /**
   * A dynamic `import()` makes a chunk of its own, loaded when it runs (esbuild's `splitting`);
   * chunks are served and hashed like the entries, as `chunk-<hash>.js`.
   */
  splitting?: boolean
}

/** Bundles, hashes and compresses; throws (at start-up) when a bundle does not build. */
export async function bundleAssets(options: BundleOptions): Promise<Assets> {
  const result = await build({
    entryPoints: Object.entries(options.entries).map(([out, input]) => ({ in: input, out })),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: '/out',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    splitting: options.splitting === true,
    legalComments: 'none',
    define: options.define,
    logLevel: 'silent',
  })
  const byName = new Map<string, string>()
  const files = new Map<string, CompressedFile>()
  for (const file of result.outputFiles) {
    const served = basename(file.path)
    if (served.endsWith('.map')) continue
    files.set(served, compress(file.contents, typeOf(served)))
    // '[name]-[hash]': the entry's name, then esbuild's hash.
    const stem = served.replace(/-[A-Za-z0-9]+\.[a-z]+$/, '')
    const input = options.entries[stem]
    if (input !== undefined && extensionOf(served) === (input.endsWith('.css') ? '.css' : '.js'))
      byName.set(stem, served)
  }
  for (const [name, content] of Object.entries(options.files ?? {})) {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
    const ext = extensionOf(name)
    const served = `${name.slice(0, name.length - ext.length)}-${hashOf(bytes).slice(0, 10)}${ext}`
    files.set(served, compress(bytes, typeOf(served)))
    byName.set(name, served)
  }
  for (const name of Object.keys(options.entries)) {
    if (!byName.has(name)) throw new Error(`assets: entry ${name} gave no output file`)
  }
  return {
    url(name) {
      const served = byName.get(name)
      if (served === undefined) throw new Error(`assets: no file named ${name}`)
      return ASSET_PREFIX + served
    },
    urls: [...files.keys()].map((f) => ASSET_PREFIX + f),
    get sizes() {
      const sizes: Record<string, { identity: number; br: number; gzip: number }> = {}
      for (const [served, file] of files)
        sizes[ASSET_PREFIX + served] = {
          identity: file.identity.length,
          br: file.br.length,
          gzip: file.gzip.length,
        }
      return sizes
    },
    handler(req) {
      const file = files.get(req.params.file ?? '')
      if (!file) return answerRefusal(refuse(404, NOT_FOUND))
      return encoded(req, file, { 'cache-control': IMMUTABLE })
    },
  }
}

/** Bundles one script under a fixed name (a service worker), compressed; `define` as esbuild's. */
export async function bundleScript(
  entry: string,
  define: Record<string, string> = {},
): Promise<CompressedFile> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    write: false,
    define,
    legalComments: 'none',
    logLevel: 'silent',
  })
  return compress(result.outputFiles[0]!.contents, TYPES['.js']!)
}

/**
 * `bytes` with its compressed forms, each made once, when first read: at brotli's best quality
 * the script of a service takes about 0.25 s of CPU, which a start would spend on forms no
 * client may ask for (most tests ask for none).
 */
export function compress(bytes: Uint8Array, type: string): CompressedFile {
  let gzip: Uint8Array | undefined
  let br: Uint8Array | undefined
  return {
    type,
    etag: `"${hashOf(bytes).slice(0, 27)}"`,
    identity: bytes,
    get gzip() {
      return (gzip ??= gzipSync(bytes, { level: 9 }))
    },
    get br() {
      return (br ??= brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }))
    },
  }
}

/** A file kept as it is: a page made per request is too small to be worth compressing each time. */
export function uncompressed(bytes: Uint8Array, type: string): CompressedFile {
  return { type, etag: `"${hashOf(bytes).slice(0, 27)}"`, identity: bytes, gzip: bytes, br: bytes }
}

/**
 * A page or fixed-address file that the browser must check each time: `no-cache` with an
 * `ETag`, 304 when `If-None-Match` names it. `headers` are added (a page's security headers).
 */
export function revalidated(req: Request, file: CompressedFile, headers: Headers = {}): Response {
  const base = { 'cache-control': 'no-cache', etag: file.etag, ...headers }
  if (matches(req.headers['if-none-match'], file.etag)) return { status: 304, headers: base }
  return encoded(req, file, base)
}

/** The file in the best encoding the request accepts. */
function encoded(req: Request, file: CompressedFile, headers: Headers): Response {
  const vary = { 'content-type': file.type, vary: 'Accept-Encoding', ...headers }
  const weight = encodingWeights(req.headers['accept-encoding'])
  // A form is made (see compress) only once a client accepts it.
  const smaller = (coding: 'br' | 'gzip') =>
    weight(coding) > 0 && file[coding].length < file.identity.length ? weight(coding) : 0
  const br = smaller('br')
  const gzip = smaller('gzip')
  // The coding the client weighs highest; on a tie brotli, the smaller.
  if (br > 0 && br >= gzip)
    return { status: 200, headers: { ...vary, 'content-encoding': 'br' }, body: file.br }
  if (gzip > 0)
    return { status: 200, headers: { ...vary, 'content-encoding': 'gzip' }, body: file.gzip }
  return { status: 200, headers: vary, body: file.identity }
}

/**
 * How much an `Accept-Encoding` field wants each content coding (RFC 9110 section 12.5.3): its
 * own `q`, else that of `*`, else 0 (not wanted). `q=0` refuses a coding; an element whose `q`
 * is not a number from 0 to 1 is passed over.
 */
export function encodingWeights(field: string | string[] | undefined): (coding: string) => number {
  const weights = new Map<string, number>()
  for (const element of String(field ?? '').split(',')) {
    const [name = '', ...params] = element.split(';').map((part) => part.trim().toLowerCase())
    if (name === '') continue
    let q = 1
    for (const param of params) {
      if (!/^q\s*=/.test(param)) continue
      const m = /^q\s*=\s*(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/.exec(param)
      q = m ? Number(m[1]) : NaN
    }
    if (!Number.isNaN(q)) weights.set(name, q)
  }
  return (coding) => weights.get(coding) ?? weights.get('*') ?? 0
}

function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url')
}

function extensionOf(name: string): string {
  const m = /\.[a-z]+$/.exec(name)
  return m ? m[0] : ''
}

function typeOf(name: string): string {
  return TYPES[extensionOf(name)] ?? 'application/octet-stream'
}
