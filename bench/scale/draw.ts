/** Redraws docs/images/scale.svg from the stored figures of both databases: `tsx bench/scale/draw.ts`. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { drawChart, type ScaleResults } from './chart.ts'

const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url))

export function redraw(): void {
  const all = ['embedded', 'postgres']
    .filter((k) => existsSync(`${IMAGES}scale-${k}.json`))
    .map((k) => JSON.parse(readFileSync(`${IMAGES}scale-${k}.json`, 'utf8')) as ScaleResults)
  writeFileSync(`${IMAGES}scale.svg`, drawChart(all))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) redraw()
