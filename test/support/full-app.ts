/**
 * The whole application as `npm start` runs it (src/app.ts: both services and the identity
 * provider) on this test file's database schema and free ports, with Chromium
 * (test/support/browser.ts) to drive it the way a person does. Screenshots go to
 * `SCREENSHOTS` when it is set.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { startApp, type App } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { createLogger } from '../../src/base/log.ts'
import { launchBrowser } from './browser.ts'
import { testDatabase, type TestDatabase } from './db.ts'
export { screenshot } from './screenshot.ts'

export const WIDE = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

export interface FullApp {
  app: App
  config: Config
  db: TestDatabase
  browser: Browser
  notes: string
  tickets: string
  idp: string
  /** A new browser context (its own cookies) with a page. */
  person(options?: {
    viewport?: { width: number; height: number }
    colorScheme?: 'light' | 'dark'
  }): Promise<{ context: BrowserContext; page: Page }>
  close(): Promise<void>
}

/** Starts the application with `env` (ports 0, rate limits off unless given) and a browser. */
export async function fullApp(env: NodeJS.ProcessEnv = {}): Promise<FullApp> {
  const db = await testDatabase()
  const config = loadConfig({
    HOST: '127.0.0.1',
    NOTES_PORT: '0',
    TICKETS_PORT: '0',
    IDP_PORT: '0',
    RATE_LIMIT: 'off',
    ...env,
  })
  const app = await startApp(config, {
    logger: createLogger(null),
    db: {
      sql: db.sql,
      kind: process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres',
      close: async () => {},
    },
  })
  const browser = await launchBrowser()
  // The browser and the application stop before the database goes, whoever asks first.
  let closing: Promise<void> | null = null
  const close = () =>
    (closing ??= (async () => {
      await browser.close()
      await app.close()
    })())
  db.stopFirst(close)
  // The services' public addresses are localhost ones (where their cookies live), as npm start prints them.
  const local = (url: string) => url.replace('127.0.0.1', 'localhost')
  return {
    app,
    config,
    db,
    browser,
    notes: local(app.servers.notes!.url),
    tickets: local(app.servers.tickets!.url),
    idp: local(app.servers.idp!.url),
    async person(options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? WIDE,
        colorScheme: options.colorScheme ?? 'light',
      })
      return { context, page: await context.newPage() }
    },
    close,
  }
}

/** Collects the page's console messages about a Content-Security-Policy refusal. */
export function cspViolations(page: Page): string[] {
  const found: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) found.push(message.text())
  })
  return found
}
