/**
 * The notes app's service worker: keeps the page and its hashed files, so the app opens with no
 * network (also after a browser restart). The page is asked for on the network first and kept
 * (its copy answers when the network fails); hashed files never change, so the kept copy
 * answers them. The API is never kept. A new worker waits until the page asks it to take over
 * (the page's "Reload"), so an open app is never switched under its feet; queued edits live in
 * IndexedDB, which an update does not touch.
 *
 * @module
 */
declare const self: ServiceWorkerGlobalScope
/** The page and every hashed file (set by src/notes/web.ts when it bundles this file). */
declare const __APP_FILES__: string[]
declare const __APP_VERSION__: string

const PREFIX = 'notes-app-'
const CACHE = `${PREFIX}${__APP_VERSION__}`

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(__APP_FILES__)))
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys())
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key)
      await self.clients.claim()
    })(),
  )
})

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') void self.skipWaiting()
})

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin !== self.location.origin) return
  if (request.mode === 'navigate' && url.pathname === '/') {
    event.respondWith(networkFirst(request, '/'))
  } else if (url.pathname === '/manifest.webmanifest') {
    event.respondWith(networkFirst(request, url.pathname))
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirst(request))
  }
})

async function networkFirst(request: Request, key: string): Promise<Response> {
  const cache = await caches.open(CACHE)
  try {
    const response = await fetch(request)
    if (response.ok) await cache.put(key, response.clone())
    return response
  } catch (error) {
    const kept = await cache.match(key)
    if (kept) return kept
    throw error
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE)
  const kept = await cache.match(request)
  if (kept) return kept
  const response = await fetch(request)
  if (response.ok) await cache.put(request, response.clone())
  return response
}
