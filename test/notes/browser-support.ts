/**
 * The notes service on a real port with its web app, and Chromium (test/support/browser.ts)
 * to drive it: one server and one browser per test file. Each "device" is a browser context of
 * its own (its own cookies, IndexedDB and service worker), signed in through the login callback.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { compress, revalidated } from '../../src/http/assets.ts'
import { serve } from '../../src/http/server.ts'
import { makeRequest, type Request } from '../../src/http/request.ts'
import type { Response } from '../../src/http/response.ts'
import { PAGE_HEADERS } from '../../src/http/page-headers.ts'
import { createLogger } from '../../src/base/log.ts'
import { createNotesService } from '../../src/notes/service.ts'
import { launchBrowser } from '../support/browser.ts'
import { testDatabase } from '../support/db.ts'
import { serviceDeps } from '../support/service.ts'
import { holdPort } from '../../src/start/ports.ts'

export const WIDE = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

export async function notesBrowserApp() {
  // Held from now until the server listens on it (src/start/ports.ts): the address is needed first.
  const held = await holdPort('127.0.0.1')
  const url = `http://127.0.0.1:${held.port}`
  const db = await testDatabase()
  const { deps, idp } = await serviceDeps(db.sql, 'notes', { env: { NOTES_URL: url } })
  const service = createNotesService(deps)
  // newBuild() makes /sw.js answer different bytes, as a new version of the app would.
  let build = 0
  const routes = service.routes.map((route) =>
    route.path !== '/sw.js'
      ? route
      : {
          ...route,
          handler: async (req: Request): Promise<Response> => {
            const original = await route.handler(makeRequest({ url: '/sw.js' }))
            if (build === 0) return route.handler(req)
            const body = `${new TextDecoder().decode(original.body as Uint8Array)}\n// build ${build}\n`
            return revalidated(
              req,
              compress(new TextEncoder().encode(body), 'text/javascript; charset=utf-8'),
              PAGE_HEADERS,
            )
          },
        },
  )
  const served = await serve({
    name: 'notes',
    routes,
    host: '127.0.0.1',
    port: held.port,
    held: held.take(),
    logger: createLogger(null),
  })
  const browser: Browser = await launchBrowser()

  /**
   * A new device of `user`: a context signed in, with the app open and ready. `before` runs
   * first in a page of the service's origin that is not the app (the manifest), to put
   * things into the browser before the app ever opens.
   */
  async function device(
    user: string,
    options: {
      viewport?: { width: number; height: number }
      colorScheme?: 'light' | 'dark'
      name?: string
      touch?: boolean
      before?: (page: Page) => Promise<void>
    } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const touch = options.touch ? { hasTouch: true, isMobile: true } : {}
    const context = await browser.newContext({
      viewport: options.viewport ?? WIDE,
      colorScheme: options.colorScheme ?? 'light',
      acceptDownloads: true,
      ...touch,
    })
    const page = await context.newPage()
    if (options.before) {
      await page.goto(`${url}/manifest.webmanifest`)
      await options.before(page)
    }
    await page.goto(
      `${url}/login/callback?idp_code=${idp.code({ id: user, name: options.name ?? user })}`,
    )
    await ready(page)
    return { context, page }
  }

  async function close(): Promise<void> {
    await browser.close()
    await served.close()
  }

  return { url, db, sql: db.sql, browser, device, close, newBuild: () => void build++ }
}

/** Waits until the app has opened its copy (the status line says where it stands). */
export async function ready(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const status = document.getElementById('status')?.textContent ?? ''
      return status !== '' && status !== 'Opening…'
    },
    undefined,
    { timeout: 20_000 },
  )
}

/** Waits until the status line says "Saved": every edit has reached the server. */
export async function saved(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 20_000 })
}
