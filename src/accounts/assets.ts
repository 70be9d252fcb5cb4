/** The identity provider's browser files: its stylesheet and the passkey script, bundled once at start (src/http/assets.ts). */
import { fileURLToPath } from 'node:url'
import { bundleAssets, type Assets } from '../http/assets.ts'

const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url))

export function bundleProviderAssets(): Promise<Assets> {
  return bundleAssets({
    entries: { style: `${APP_DIR}style.css`, passkeys: `${APP_DIR}passkeys.ts` },
  })
}
