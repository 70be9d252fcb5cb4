import type { BuildOptions } from 'esbuild'

/** See node-bundle.mjs. */
export const nodeBundle: BuildOptions
