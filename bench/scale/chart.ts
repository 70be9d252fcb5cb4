/**
 * The growth chart, as an SVG written by hand (no plotting library): one panel a database, one
 * line a route, requests per second at each size relative to the smallest size (1.0 flat; the
 * goal's line at 1/1.5), on a log scale of the data's size.
 */
export interface ScaleResults {
  kind: string
  date: string
  sizes: { tickets: number; notes: number; peakRssMb: number }[]
  routes: Record<string, { list: boolean; figures: { perSecond: number; p99: number }[] }>
  live: { median: number; p99: number }[]
  explain: { name: string; routes: string; query: string; plan: string }[]
}

const COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#ff7f0e',
]
const W = 480
const H = 320
const M = { left: 70, right: 60, top: 40, bottom: 50 }
const Y_MAX = 1.6
const Y_MIN = 0

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** Both databases side by side, with one legend below. */
export function drawChart(all: ScaleResults[]): string {
  const names = [...new Set(all.flatMap((r) => [...Object.keys(r.routes), '/api/live wake-up']))]
  const legendRows = Math.ceil(names.length / 3)
  const width = W * Math.max(1, all.length)
  const height = H + 20 + legendRows * 18
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ]
  all.forEach((r, i) => parts.push(panel(r, i * W, names)))
  names.forEach((name, i) => {
    const x = 20 + (i % 3) * (width / 3)
    const y = H + 20 + Math.floor(i / 3) * 18
    const dash = name.includes('whole') ? ' stroke-dasharray="4 3"' : ''
    parts.push(
      `<line x1="${x}" y1="${y - 4}" x2="${x + 24}" y2="${y - 4}" stroke="${COLOURS[i % COLOURS.length]}" stroke-width="2"${dash}/>`,
    )
    parts.push(`<text x="${x + 30}" y="${y}">${esc(name)}</text>`)
  })
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}

function panel(r: ScaleResults, x0: number, names: string[]): string {
  const px = (i: number) =>
    x0 + M.left + (i / Math.max(1, r.sizes.length - 1)) * (W - M.left - M.right)
  const py = (v: number) =>
    M.top +
    (1 - (Math.min(Y_MAX, Math.max(Y_MIN, v)) - Y_MIN) / (Y_MAX - Y_MIN)) * (H - M.top - M.bottom)
  const out: string[] = [
    `<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${esc(r.kind)} database: requests/s relative to the smallest size</text>`,
  ]
  for (let v = 0; v <= Y_MAX + 1e-9; v += 0.2) {
    out.push(
      `<line x1="${px(0)}" y1="${py(v).toFixed(1)}" x2="${px(r.sizes.length - 1)}" y2="${py(v).toFixed(1)}" stroke="#ddd"/>`,
    )
    out.push(
      `<text x="${px(0) - 6}" y="${(py(v) + 4).toFixed(1)}" text-anchor="end">${v.toFixed(1)}</text>`,
    )
  }
  const goal = py(1 / 1.5).toFixed(1)
  out.push(
    `<line x1="${px(0)}" y1="${goal}" x2="${px(r.sizes.length - 1)}" y2="${goal}" stroke="#000" stroke-dasharray="2 2"/>`,
  )
  out.push(
    `<text x="${px(r.sizes.length - 1)}" y="${Number(goal) - 4}" text-anchor="end">goal: no lower than 1/1.5</text>`,
  )
  r.sizes.forEach((s, i) => {
    out.push(
      `<text x="${px(i)}" y="${H - M.bottom + 16}" text-anchor="middle">${s.tickets.toLocaleString('en-US')} tickets</text>`,
    )
    out.push(
      `<text x="${px(i)}" y="${H - M.bottom + 30}" text-anchor="middle">${s.notes.toLocaleString('en-US')} notes</text>`,
    )
  })
  const series: [string, number[]][] = Object.entries(r.routes).map(([name, route]) => [
    name,
    route.figures.map((f) => f.perSecond / route.figures[0]!.perSecond),
  ])
  // Wake-ups are times: relative speed is the smallest size's time over this size's.
  series.push(['/api/live wake-up', r.live.map((l) => r.live[0]!.median / l.median)])
  for (const [name, values] of series) {
    const colour = COLOURS[names.indexOf(name) % COLOURS.length]
    const dash = name.includes('whole') ? ' stroke-dasharray="4 3"' : ''
    out.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${values.map((v, i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`,
    )
    values.forEach((v, i) =>
      out.push(
        `<circle cx="${px(i).toFixed(1)}" cy="${py(v).toFixed(1)}" r="2.5" fill="${colour}"><title>${esc(name)}: ${v.toFixed(2)}</title></circle>`,
      ),
    )
  }
  return out.join('\n')
}
