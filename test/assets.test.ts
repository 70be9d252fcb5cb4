import assert from 'node:assert/strict'
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { test } from 'node:test'
import { bundleAssets, compress, encodingWeights, revalidated } from '../src/http/assets.ts'
import { until } from './support/wait.ts'
import { makeRequest } from '../src/http/request.ts'

const dir = await mkdtemp(join(tmpdir(), 'assets-test-'))
await writeFile(
  join(dir, 'helper.ts'),
  'export const greet = (name: string): string => `hello ${name}`\n',
)
await writeFile(
  join(dir, 'main.ts'),
  `import { greet } from './helper.ts'\n${Array.from({ length: 40 }, (_, i) => `document.title = greet('world number ${i}')\n`).join('')}`,
)
await writeFile(join(dir, 'a.css'), ':root { --x: 1px }\nbody { margin: var(--x) }\n')
const assets = await bundleAssets({
  entries: { main: join(dir, 'main.ts'), look: join(dir, 'a.css') },
  files: { 'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>' },
})

function get(url: string, headers: Record<string, string> = {}) {
  const file = url.slice('/assets/'.length)
  return assets.handler(
    makeRequest({ url, headers, params: Object.assign(Object.create(null), { file }) }),
  )
}

test('entries are bundled into one file each under a content-hashed name', () => {
  assert.match(assets.url('main'), /^\/assets\/main-[A-Za-z0-9]+\.js$/)
  assert.match(assets.url('look'), /^\/assets\/look-[A-Za-z0-9]+\.css$/)
  assert.match(assets.url('logo.svg'), /^\/assets\/logo-[A-Za-z0-9_-]+\.svg$/)
  const body = new TextDecoder().decode(get(assets.url('main')).body as Uint8Array)
  assert.ok(body.includes('hello '), body)
  assert.ok(!body.includes('import'), 'the helper is bundled in')
  assert.deepEqual(
    [...assets.urls].sort(),
    [assets.url('main'), assets.url('look'), assets.url('logo.svg')].sort(),
  )
})

test('a file is answered immutable, brotli or gzip as the request accepts, and both decompress to the file', () => {
  const plain = get(assets.url('main'))
  assert.equal(plain.headers!['cache-control'], 'public, max-age=31536000, immutable')
  assert.equal(plain.headers!['content-type'], 'text/javascript; charset=utf-8')
  const br = get(assets.url('main'), { 'accept-encoding': 'gzip, br' })
  assert.equal(br.headers!['content-encoding'], 'br')
  assert.deepEqual(new Uint8Array(brotliDecompressSync(br.body as Uint8Array)), plain.body)
  const gz = get(assets.url('look'), { 'accept-encoding': 'gzip' })
  if (gz.headers!['content-encoding'] === 'gzip')
    assert.deepEqual(
      new Uint8Array(gunzipSync(gz.body as Uint8Array)),
      get(assets.url('look')).body,
    )
  assert.equal(get('/assets/main-UNKNOWN.js').status, 404)
})

test('a coding the request refuses with q=0 is never sent, and the higher weighed one wins', () => {
  const encoding = (accept: string) =>
    get(assets.url('main'), { 'accept-encoding': accept }).headers!['content-encoding']
  assert.equal(encoding('br;q=0'), undefined)
  assert.equal(encoding('gzip, br;q=0'), 'gzip')
  assert.equal(encoding('br;q=0, gzip;q=0'), undefined)
  assert.equal(encoding('*;q=0'), undefined)
  assert.equal(encoding('*'), 'br')
  assert.equal(encoding('br;q=0.5, gzip'), 'gzip')
  assert.equal(encoding('gzip;q=0.5, br;q=0.8'), 'br')
  assert.equal(encoding('BR'), 'br')
  assert.equal(encoding('gzip, br;q=zero'), 'gzip')
})

test("encodingWeights reads each coding's q, falling back to * and then to 0", () => {
  const weight = encodingWeights('gzip;q=0.3, br ; q=1.0, *;q=0.1, identity;q=0')
  assert.equal(weight('gzip'), 0.3)
  assert.equal(weight('br'), 1)
  assert.equal(weight('deflate'), 0.1)
  assert.equal(weight('identity'), 0)
  assert.equal(encodingWeights(undefined)('br'), 0)
  assert.equal(encodingWeights('gzip;level=9')('gzip'), 1)
  assert.equal(encodingWeights('gzip;q=2')('gzip'), 0)
})

test('an unknown entry name is a programmer mistake and throws', () => {
  assert.throws(() => assets.url('nothing'), /no file named nothing/)
})

test('revalidated() answers no-cache with an ETag and 304 for a matching If-None-Match (weak or listed)', () => {
  const file = compress(new TextEncoder().encode('<p>hello</p>'), 'text/html; charset=utf-8')
  const first = revalidated(makeRequest({ url: '/' }), file, { 'x-extra': '1' })
  assert.equal(first.status, 200)
  assert.equal(first.headers!['cache-control'], 'no-cache')
  assert.equal(first.headers!['x-extra'], '1')
  assert.equal(
    revalidated(makeRequest({ url: '/', headers: { 'if-none-match': file.etag } }), file).status,
    304,
  )
  assert.equal(
    revalidated(
      makeRequest({ url: '/', headers: { 'if-none-match': `"other", W/${file.etag}` } }),
      file,
    ).status,
    304,
  )
  assert.equal(
    revalidated(makeRequest({ url: '/', headers: { 'if-none-match': '"other"' } }), file).status,
    200,
  )
  assert.equal(
    revalidated(makeRequest({ url: '/', headers: { 'if-none-match': '*' } }), file).status,
    304,
  )
})

test('a bundle that does not build throws at start-up', async () => {
  await writeFile(
    join(dir, 'broken.ts'),
    'import { nothing } from "./missing.ts"\nconsole.log(nothing)\n',
  )
  await assert.rejects(bundleAssets({ entries: { broken: join(dir, 'broken.ts') } }))
})

/** esbuild child processes of this process (tsx, which loads the tests, may have one of its own). */
async function esbuildChildren(): Promise<number> {
  let n = 0
  for (const task of await readdir('/proc/self/task')) {
    const children = await readFile(`/proc/self/task/${task}/children`, 'utf8').catch(() => '')
    for (const pid of children.split(' ').filter(Boolean)) {
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
      if (command.includes('esbuild') && command.includes('--service')) n++
    }
  }
  return n
}

test("each web app's stylesheet carries the shared base once, before its own rules", async () => {
  const sheets = {
    notes: 'src/notes/app/app.css',
    tickets: 'src/tickets/app/style.css',
    provider: 'src/accounts/app/style.css',
  }
  // A rule of each app's own, which must come after the base so that it wins at equal specificity.
  const own: Record<string, string> = {
    notes: '.welcome-card{',
    tickets: '.skip{',
    provider: '.or{',
  }
  const bundled = await bundleAssets({ entries: sheets })
  for (const name of Object.keys(sheets)) {
    const url = bundled.url(name)
    const body = new TextDecoder().decode(
      bundled.handler(
        makeRequest({
          url,
          params: Object.assign(Object.create(null), { file: url.slice('/assets/'.length) }),
        }),
      ).body as Uint8Array,
    )
    assert.ok(!body.includes('@import'), `${name}: the base is bundled in`)
    assert.equal(
      body.split('--focus:').length - 1,
      2,
      `${name}: the focus colour, light and dark, once each`,
    )
    assert.equal(
      body.split('button.primary,.button.primary{').length - 1,
      1,
      `${name}: the buttons once`,
    )
    assert.ok(
      body.includes(own[name]!) && body.indexOf('[aria-invalid=true]') < body.indexOf(own[name]!),
      `${name}: the base first, then the app's own rules`,
    )
  }
})

test("esbuild's child process is stopped a second after the last bundle, and a later bundle starts one again", async () => {
  const during = bundleAssets({ entries: { main: join(dir, 'main.ts') } })
  await during
  const right = await esbuildChildren()
  assert.ok(right >= 1)
  // Ours goes; tsx's may stay, or go on its own meanwhile (so fewer, not exactly one fewer).
  await until(async () => (await esbuildChildren()) < right)
  const again = await bundleAssets({ entries: { main: join(dir, 'main.ts') } })
  assert.match(again.url('main'), /^\/assets\/main-[A-Za-z0-9]+\.js$/)
})
