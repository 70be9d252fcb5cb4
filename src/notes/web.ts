/**
 * The notes web app's server side: the page at `/`, its bundled files (src/http/assets.ts), the
 * service worker at `/sw.js` (its scope must be the whole site), the web app manifest, and
 * `POST /logout`. The bundles are built once when the service starts; requests that come
 * before the build is done wait for it.
 *
 * @module
 */
import { shownName } from '../auth/shown-name.ts'
import { fileURLToPath } from 'node:url'
import {
  bundleAssets,
  bundleScript,
  compress,
  revalidated,
  uncompressed,
  type Assets,
  type CompressedFile,
} from '../http/assets.ts'
import { originOf, refuseCrossSite } from '../http/guards.ts'
import { answerRefusal } from '../http/refusal.ts'
import { json, type Response } from '../http/response.ts'
import type { Request } from '../http/request.ts'
import type { Sessions } from '../auth/session.ts'
import { endProviderSignIn, type IdentityProvider } from '../auth/idp.ts'
import { htmlResponse } from '../http/html.ts'
import { homePage, notPublishedPage, publishedPage, type Person } from './pages.ts'
import type { Publications } from './publications.ts'
import { menuLinks } from '../auth/person-menu.ts'
import type { Places } from '../service.ts'

const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url))

/**
 * The manifest's icons. Some browsers install a web app only with PNG icons of 192 and 512
 * pixels, and Android's launchers want a maskable one; scripts/notes-icons.ts renders the PNGs
 * from the SVG.
 */
const ICONS = [
  { file: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
  { file: 'icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
  { file: 'icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
  { file: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
] as const

export interface WebHandlers {
  /** `GET /`: the app, or the welcome page when signed out. */
  home(req: Request): Promise<Response>
  /** `GET /assets/:file`. */
  asset(req: Request): Promise<Response>
  /** `GET /sw.js`. */
  serviceWorker(req: Request): Promise<Response>
  /** `GET /manifest.webmanifest`. */
  manifest(req: Request): Promise<Response>
  /** `GET /p/:id`: a published note, read-only, for anyone with the address; no cookie read or set. */
  published(req: Request): Promise<Response>
  /** `POST /logout`: ends the session on the server. */
  logout(req: Request): Promise<Response>
  /** The built files (for the bench's size figure). */
  built(): Promise<Built>
}

export interface Built {
  assets: Assets
  worker: CompressedFile
  manifest: CompressedFile
}

/** The app's files, bundled once. */
export async function buildWebApp(): Promise<Built> {
  const { readFile } = await import('node:fs/promises')
  const assets = await bundleAssets({
    entries: {
      app: `${APP_DIR}main.ts`,
      published: `${APP_DIR}published.ts`,
      style: `${APP_DIR}app.css`,
    },
    // The reading view's Markdown renderer is a chunk loaded on the first Read (editor-view.ts).
    splitting: true,
    files: Object.fromEntries(
      await Promise.all(
        ICONS.map(async (i) => [i.file, await readFile(`${APP_DIR}${i.file}`)] as const),
      ),
    ),
  })
  // The worker keeps the page and every hashed file; its version changes with any of them, so a
  // new build installs a new worker.
  const workerFiles = ['/', ...assets.urls]
  const version = workerFiles.join('|')
  const worker = await bundleScript(`${APP_DIR}sw.ts`, {
    __APP_FILES__: JSON.stringify(workerFiles),
    __APP_VERSION__: JSON.stringify(
      compress(new TextEncoder().encode(version), 'text/plain').etag.replaceAll('"', ''),
    ),
  })
  const manifest = compress(
    new TextEncoder().encode(
      JSON.stringify({
        name: 'Notes',
        short_name: 'Notes',
        description: 'Your notes on every device, offline first.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#f7f6f3',
        theme_color: '#e8a33d',
        icons: ICONS.map((i) => ({
          src: assets.url(i.file),
          sizes: i.sizes,
          type: i.type,
          purpose: i.purpose,
        })),
      }),
    ),
    'application/manifest+json; charset=utf-8',
  )
  return { assets, worker, manifest }
}

/** A published page's id: 128 random bits in base64url. */
const PUBLICATION_ID = /^[A-Za-z0-9_-]{22}$/

/**
 * A published page's own headers: kept out of search engines, and revalidated at every view (its
 * `ETag` makes that a 304), so an Unpublish is seen at the next view, by the browser and any
 * cache between.
 */
const PUBLISHED_HEADERS = {
  'cache-control': 'public, no-cache',
  'x-robots-tag': 'noindex, nofollow',
}

export function createWebHandlers(deps: {
  sessions: Sessions
  /** The provider, told when a session with a provider's sign-in signs out (docs/core.md, "Signing out"). */
  idp?: IdentityProvider
  publications: Publications
  publicUrl: string
  places?: Places | undefined
  build?: () => Promise<Built>
}): WebHandlers {
  const { sessions } = deps
  const ownOrigin = originOf(deps.publicUrl)
  const building = (deps.build ?? buildWebApp)()
  // Awaited by every handler; a failed build answers 500 (logged by the server) rather than
  // crashing the process on an unhandled rejection.
  building.catch(() => {})

  return {
    async home(req) {
      const { assets } = await building
      const session = await sessions.load(req)
      const switchedFrom =
        typeof session?.data.switchedFrom === 'string' ? session.data.switchedFrom : null
      const person: Person | null = session?.userId
        ? {
            id: session.userId,
            name:
              typeof session.data.name === 'string' && session.data.name !== ''
                ? shownName(session.data.name, session.data.login)
                : 'you',
            switchedFrom,
            menu: menuLinks(deps.places, session.data.owner === true, 'notes'),
          }
        : null
      // A switch of person is said once, on this page.
      if (session !== null && switchedFrom !== null) {
        session.data.switchedFrom = null
        await sessions.save(session)
      }
      const page = homePage(person, {
        script: assets.url('app'),
        style: assets.url('style'),
        icon: assets.url('icon.svg'),
      })
      // Private: the page names the person, so no shared cache keeps it, and the browser's
      // revalidates it for the cookie it was answered to.
      return revalidated(
        req,
        uncompressed(new TextEncoder().encode(page.text), 'text/html; charset=utf-8'),
        { 'cache-control': 'private, no-cache', vary: 'Cookie' },
      )
    },

    async published(req) {
      const { assets } = await building
      const files = {
        script: assets.url('published'),
        style: assets.url('style'),
        icon: assets.url('icon.svg'),
      }
      const id = req.params.id ?? ''
      const note = PUBLICATION_ID.test(id) ? await deps.publications.page(id) : null
      if (note === null)
        return htmlResponse(404, notPublishedPage(files), {
          'cache-control': 'no-store',
          'x-robots-tag': 'noindex, nofollow',
        })
      return revalidated(
        req,
        uncompressed(
          new TextEncoder().encode(publishedPage(note, files).text),
          'text/html; charset=utf-8',
        ),
        PUBLISHED_HEADERS,
      )
    },

    async asset(req) {
      return (await building).assets.handler(req)
    },

    async serviceWorker(req) {
      return revalidated(req, (await building).worker)
    },

    async manifest(req) {
      return revalidated(req, (await building).manifest)
    },

    async logout(req) {
      const refused = refuseCrossSite(req, sessions.cookieName, ownOrigin)
      if (refused) return answerRefusal(refused)
      const session = await sessions.load(req)
      // The row goes: the cookie names nothing from now on, in every process. Then the provider's
      // sign-in it came from ends, and with it the provider's and the tracker's sessions of this
      // browser (docs/core.md, "Signing out").
      if (session) {
        await sessions.remove(session)
        if (deps.idp) await endProviderSignIn(deps.idp, session.data)
      }
      return json(
        200,
        { ok: true },
        { 'cache-control': 'no-store', 'set-cookie': sessions.clearCookie() },
      )
    },

    built: () => building,
  }
}
