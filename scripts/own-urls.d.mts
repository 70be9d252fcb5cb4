import type { Plugin } from 'esbuild'

/** See own-urls.mjs. */
export const ownUrls: Plugin
