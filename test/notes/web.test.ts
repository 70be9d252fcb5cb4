import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService, cookieOf } from './support.ts'

const app = await notesService()
const alice = await app.signIn('alice')

const CSP = /default-src 'self'; script-src 'self'; .*frame-ancestors 'none'/

test('every answer of the notes service carries the strict CSP, nosniff and same-origin referrer', async () => {
  for (const [url, cookie] of [
    ['/', undefined],
    ['/', alice],
    ['/login/failed', undefined],
    ['/api/notes', alice],
    ['/manifest.webmanifest', undefined],
    ['/sw.js', undefined],
  ] as const) {
    const res = await app.call('GET', url, { cookie })
    assert.match(res.headers['content-security-policy'] ?? '', CSP, url)
    assert.doesNotMatch(res.headers['content-security-policy'] ?? '', /unsafe-inline|unsafe-eval/)
    assert.equal(res.headers['x-content-type-options'], 'nosniff', url)
    assert.equal(res.headers['referrer-policy'], 'same-origin', url)
  }
})

test('the page is no-cache with an ETag, and a matching If-None-Match answers 304', async () => {
  const page = await app.call('GET', '/', { cookie: alice })
  assert.equal(page.status, 200)
  assert.equal(page.headers['cache-control'], 'private, no-cache')
  const etag = page.headers.etag!
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/)
  const again = await app.call('GET', '/', { cookie: alice, headers: { 'if-none-match': etag } })
  assert.equal(again.status, 304)
  assert.equal(again.text, '')
})

test('the app files are served under hashed names, immutable, in brotli or gzip as asked', async () => {
  const page = await app.call('GET', '/', { cookie: alice })
  const script = /src="(\/assets\/app-[A-Za-z0-9]+\.js)"/.exec(page.text)![1]!
  const style = /href="(\/assets\/style-[A-Za-z0-9]+\.css)"/.exec(page.text)![1]!
  const plain = await app.call('GET', script)
  assert.equal(plain.status, 200)
  assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
  assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8')
  assert.equal(plain.headers['content-encoding'], undefined)
  assert.ok(plain.text.length > 1000)
  const br = await app.call('GET', script, { headers: { 'accept-encoding': 'gzip, deflate, br' } })
  assert.equal(br.headers['content-encoding'], 'br')
  assert.equal(br.headers.vary, 'Accept-Encoding')
  const gz = await app.call('GET', style, { headers: { 'accept-encoding': 'gzip' } })
  assert.equal(gz.headers['content-encoding'], 'gzip')
  assert.equal(gz.headers['content-type'], 'text/css; charset=utf-8')
  assert.ok((await app.call('GET', style)).text.includes('--bg'))
  assert.equal((await app.call('GET', '/assets/app-NOPE.js')).status, 404)
})

test('the manifest names the app, its start address and an icon', async () => {
  const res = await app.call('GET', '/manifest.webmanifest')
  assert.equal(res.headers['content-type'], 'application/manifest+json; charset=utf-8')
  const manifest = res.json
  assert.equal(manifest.name, 'Notes')
  assert.equal(manifest.start_url, '/')
  assert.equal(manifest.display, 'standalone')
  const icon = await app.call('GET', manifest.icons[0].src)
  assert.equal(icon.status, 200)
  assert.equal(icon.headers['content-type'], 'image/svg+xml')
})

/** A PNG's width and height, from its IHDR chunk (bytes 16 to 23). */
function pngSize(bytes: Buffer): string {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'a PNG file')
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`
}

test('the manifest offers PNG icons of 192 and 512 pixels and a maskable one, each served as the type and size it says', async () => {
  const { icons } = (await app.call('GET', '/manifest.webmanifest')).json as {
    icons: { src: string; sizes: string; type: string; purpose: string }[]
  }
  const pngs = icons.filter((i) => i.type === 'image/png')
  assert.deepEqual(pngs.map((i) => `${i.sizes} ${i.purpose}`).sort(), [
    '192x192 any',
    '512x512 any',
    '512x512 maskable',
  ])
  for (const icon of icons) {
    const res = await app.call('GET', icon.src)
    assert.equal(res.status, 200, icon.src)
    assert.equal(res.headers['content-type'], icon.type, icon.src)
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', icon.src)
    if (icon.type === 'image/png') assert.equal(pngSize(res.bytes), icon.sizes, icon.src)
  }
  // The service worker keeps them, so an installed app shows its icon offline.
  const worker = (await app.call('GET', '/sw.js')).text
  for (const icon of icons)
    assert.ok(worker.includes(icon.src), `the service worker keeps ${icon.src}`)
})

test('the service worker is served at /sw.js with no-cache, and lists the hashed files it keeps', async () => {
  const res = await app.call('GET', '/sw.js')
  assert.equal(res.headers['cache-control'], 'no-cache')
  assert.match(res.text, /\/assets\/app-[A-Za-z0-9]+\.js/)
})

test('POST /logout ends the session on the server; a cross-site one is refused', async () => {
  const res = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'carol', name: 'Carol' })}`,
  )
  const cookie = cookieOf(res.headers['set-cookie']!)
  const cross = await app.call('POST', '/logout', {
    cookie,
    headers: { origin: 'https://evil.example' },
  })
  assert.equal(cross.status, 403)
  assert.deepEqual((await app.call('GET', '/api/me', { cookie })).json, { user: 'carol' })
  const out = await app.call('POST', '/logout', { cookie, headers: { origin: app.publicUrl } })
  assert.equal(out.status, 200)
  assert.deepEqual((await app.call('GET', '/api/me', { cookie })).json, { user: null })
  assert.equal((await app.call('GET', '/api/notes', { cookie })).status, 401)
})
