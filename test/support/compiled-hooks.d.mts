// The part of compiled-hooks.mjs that test/run.ts imports.
import type { TransformOptions } from 'esbuild'

export function transformOptions(path: string): TransformOptions
