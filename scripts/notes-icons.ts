/**
 * Renders the notes app's PNG icons from src/notes/app/icon.svg with the tests' Chromium, for
 * browsers that install a web app only with PNG icons (docs/notes-app.md, "Installing"):
 *
 *   npx tsx scripts/notes-icons.ts
 *
 * writes `icon-192.png` and `icon-512.png` (the icon as drawn, transparent corners) and
 * `icon-maskable-512.png` (square, edge to edge, the drawing inside the safe zone a launcher's
 * mask keeps: a circle of 40% of the width around the centre) next to the SVG. The PNGs are
 * committed; run this again after changing the SVG.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { launchBrowser } from '../test/support/browser.ts'

const dir = fileURLToPath(new URL('../src/notes/app/', import.meta.url))
const svg = await readFile(`${dir}icon.svg`, 'utf8')
// The maskable one: the background without its rounded corners, the page drawn 80% as large.
const background = /<rect width="512" height="512"[^>]*\/>/.exec(svg)?.[0]
if (!background) throw new Error('icon.svg no longer starts with its 512 x 512 background')
const inner = svg.slice(svg.indexOf(background) + background.length, svg.lastIndexOf('</svg>'))
const maskable = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">${background.replace(/ rx="[^"]*"/, '')}<g transform="translate(256 256) scale(0.8) translate(-256 -256)">${inner}</g></svg>`

const browser = await launchBrowser()
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 })
  for (const [file, source, size] of [
    ['icon-192.png', svg, 192],
    ['icon-512.png', svg, 512],
    ['icon-maskable-512.png', maskable, 512],
  ] as const) {
    await page.setViewportSize({ width: size, height: size })
    const sized = source.replace('<svg ', `<svg width="${size}" height="${size}" `)
    await page.setContent(
      `<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${sized}`,
    )
    await writeFile(`${dir}${file}`, await page.screenshot({ omitBackground: true }))
    console.log(`wrote src/notes/app/${file}`)
  }
} finally {
  await browser.close()
}
