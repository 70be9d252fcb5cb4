/**
 * The Chromium the browser tests and benches drive through playwright-core.
 *
 * `CHROMIUM_PATH` names one; otherwise Debian's `/usr/bin/chromium` when it is installed;
 * otherwise the Chromium build that ships inside the `@sparticuz/chromium` package, unpacked
 * once into a folder of the system's temporary directory named after the package's version.
 * So `npm install && npm test` needs no system package. It is launched with playwright-core's
 * own defaults, not the package's serverless flags (those switch off parts of web security).
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type LaunchOptions } from 'playwright-core'

const SYSTEM_CHROMIUM = '/usr/bin/chromium'

/** The path of the Chromium to run, unpacking the packaged one on first use. */
export async function chromiumPath(): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM
  return packagedChromium()
}

async function packagedChromium(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(
      new URL('../../node_modules/@sparticuz/chromium/package.json', import.meta.url),
      'utf8',
    ),
  ) as { version: string }
  const home = join(tmpdir(), `notes-tickets-chromium-${manifest.version}`)
  const binary = join(home, 'chromium')
  if (existsSync(binary)) return binary
  // The package unpacks into os.tmpdir(). Point that at a fresh folder, then move the whole
  // folder into place in one rename, so two processes unpacking at once never run half a file.
  const partial = await mkdtemp(`${home}.partial-`)
  const saved = process.env.TMPDIR
  process.env.TMPDIR = partial
  try {
    const { default: packaged } = await import('@sparticuz/chromium')
    await packaged.executablePath()
  } finally {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  }
  try {
    await rename(partial, home)
  } catch (error) {
    // Another process got there first; its copy is as good as ours.
    await rm(partial, { recursive: true, force: true })
    if (!existsSync(binary)) throw error
  }
  return binary
}

/** Launches headless Chromium with the flags a closed network needs (no background fetches). */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    ...options,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(options.args ?? []),
    ],
  })
}
