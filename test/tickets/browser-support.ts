/**
 * The ticket service on a real port with its web app, and Chromium (test/support/browser.ts) to
 * drive it: one server and one browser per test file. Each person is a browser context of their
 * own: `signIn` signs them in as a person does, through **Sign in** and the built-in provider's
 * form (started beside the service); `person` through the login return, a shortcut for set-up.
 * Screenshots go to `SCREENSHOTS` when it is set.
 */
import { mkdir } from 'node:fs/promises'
import { after } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { serve } from '../../src/http/server.ts'
import { createLogger } from '../../src/base/log.ts'
import { createIdentityProvider } from '../../src/auth/idp.ts'
import { loadSessionSecret } from '../../src/auth/session.ts'
import type { Served } from '../../src/http/server.ts'
import { startProvider } from '../../src/start/provider.ts'
import { ticketsAccountHooks } from '../../src/tickets/account-hooks.ts'
import { launchBrowser } from '../support/browser.ts'
import { makeAccount, signIn as signInByForm } from '../support/sign-in.ts'
import { ticketsApp } from './support.ts'
import { holdPort } from '../../src/start/ports.ts'
export { screenshot } from '../support/screenshot.ts'

export const WIDE = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

export async function ticketsBrowserApp(options: { env?: NodeJS.ProcessEnv } = {}) {
  // Registered before the app's own hooks, so the browser and the server stop before the
  // services and their database: a page's request in flight then never meets a closed database.
  after(() => close())
  // Held from now until the server listens on it (src/start/ports.ts): the address is needed first.
  const held = await holdPort('127.0.0.1')
  const url = `http://127.0.0.1:${held.port}`
  const app = await ticketsApp({
    env: { IDP_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT: 'off', ...options.env, TICKETS_URL: url },
  })
  // The pages' relative times are computed again in the browser with its own clock.
  app.clock.advance(Date.now() - app.clock.now())
  // The built-in provider, as `npm start` runs it beside the tracker: **Sign in** leads there,
  // and the codes it hands out are exchanged with it (the test's own codes stay the test's).
  let providerServer: Served | null = null
  const provider = await startProvider({
    config: app.config,
    db: { sql: app.sql, kind: 'postgres', close: async () => {} },
    clock: Date.now,
    logger: createLogger(null),
    secret: await loadSessionSecret(app.sql, app.config.sessionSecret),
    ready: async () => true,
    addressOf: (name) => (name === 'tickets' ? url : null),
    hooks: [ticketsAccountHooks({ sql: app.sql, clock: Date.now, publicUrl: url })],
    onLimiter: () => {},
    onServer: (server) => (providerServer = server),
  })
  app.idp.useProvider(
    createIdentityProvider({
      authUrl: provider.authUrl,
      apiKey: app.config.apiKey,
      apiSecret: app.config.apiSecret,
      keyInLinks: false,
    }),
  )
  const served = await serve({
    name: 'tickets',
    routes: app.service.routes,
    host: '127.0.0.1',
    port: held.port,
    held: held.take(),
    logger: createLogger(null),
  })
  const browser: Browser = await launchBrowser()
  let people = 0

  /**
   * A browser of `name`, signed in (or signed out with `null`), at `viewport`. `touch`: a phone's
   * touch screen (no hover, a coarse pointer) rather than a mouse.
   */
  async function person(
    name: string | null,
    options: {
      viewport?: { width: number; height: number }
      colorScheme?: 'light' | 'dark'
      idpId?: string
      touch?: boolean
    } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const touch = options.touch ? { hasTouch: true, isMobile: true } : {}
    const context = await browser.newContext({
      viewport: options.viewport ?? WIDE,
      colorScheme: options.colorScheme ?? 'light',
      ...touch,
    })
    const page = await context.newPage()
    if (name !== null) {
      const code = app.idp.code({ id: options.idpId ?? `idp-${name}-${++people}`, name })
      await page.goto(`${url}/login/callback?idp_code=${code}`)
    }
    return { context, page }
  }

  const accounts = new Map<string, Promise<string>>()
  /**
   * The provider account of `name`, made the first time (password `<name> password`); answers
   * its id, the identity the tracker knows them by: `app.login(name, id)` acts as the same
   * person through the API.
   */
  function account(name: string): Promise<string> {
    let id = accounts.get(name)
    if (!id) accounts.set(name, (id = makeAccount(app.sql, { name, password: `${name} password` })))
    return id
  }

  /**
   * A browser of `name` (an account of theirs made if need be), signed in as a person does:
   * **Sign in**, the provider's form, back on the tracker.
   */
  async function signIn(
    name: string,
    options: { viewport?: { width: number; height: number } } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    await account(name)
    const { context, page } = await person(null, options)
    await signInByForm(page, url, { name, password: `${name} password` })
    return { context, page }
  }

  let closing: Promise<void> | null = null
  /** Stops the browser, the server and the service, once however often it is called. */
  function close(): Promise<void> {
    closing ??= (async () => {
      await browser.close()
      await served.close()
      await providerServer?.close()
      await app.service.close?.()
    })()
    return closing
  }

  return { url, app, browser, person, account, signIn, close }
}

/** True when the page scrolls sideways (wider than its viewport). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  )
}

/**
 * With `SCREENSHOTS` set, full-page pictures of the page as it is, named
 * `tickets-<name>-<1280|390>-<light|dark>.png`; the viewport and scheme are put back after.
 */
export async function pictures(p: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS
  if (!dir) return
  await mkdir(dir, { recursive: true })
  const size = p.viewportSize() ?? WIDE
  for (const viewport of [WIDE, PHONE]) {
    for (const scheme of ['light', 'dark'] as const) {
      await p.setViewportSize(viewport)
      await p.emulateMedia({ colorScheme: scheme })
      await p.screenshot({
        path: `${dir}/tickets-${name}-${viewport.width}-${scheme}.png`,
        fullPage: true,
        animations: 'disabled',
      })
    }
  }
  await p.setViewportSize(size)
  await p.emulateMedia({ colorScheme: 'light' })
}
