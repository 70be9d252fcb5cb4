// Throughput of validateJson against JSON.parse on three ~1 MB documents.
// Run: tsx bench/json-validate.bench.ts
// Rounds interleave the two contenders (alternating which goes first) so that drift in clock
// speed or GC pressure falls on both; each figure is the median over rounds.

import { validateJson } from '../src/http/json-validate.ts'
import { prng } from '../test/support/prng.ts'

const TARGET_BYTES = 1_000_000
const ROUNDS = 15
const MIN_ROUND_MS = 40
const GOAL = 0.5

// ASCII text, as most bodies are: V8 then stores one byte per character, where JSON.parse is
// fastest. Other characters go in as \u escapes.
// Mostly plain words, like the text of a note; now and then one that needs an escape.
const WORDS = [
  'note',
  'ticket',
  'sync',
  'path/to/file',
  'lorem',
  'ipsum',
  'dolor',
  'sit',
  'amet',
  'consectetur',
  'adipiscing',
  'elit',
  'sed',
  'do',
  'eiusmod',
  'tempor',
  'incididunt',
]
const ODD_WORDS = ['tab\there', 'paragraph\n\n', 'quote "this"', 'état', 'emoji 🎉']

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x00-\x7f]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  )
}

function stringsDocument(random: () => number): string {
  const items: string[] = []
  let size = 0
  while (size < TARGET_BYTES) {
    const words: string[] = []
    const n = 5 + Math.floor(random() * 200)
    for (let i = 0; i < n; i++) {
      const list = random() < 0.03 ? ODD_WORDS : WORDS
      words.push(list[Math.floor(random() * list.length)]!)
    }
    const item = asciiJson({
      id: `n-${items.length}`,
      title: words.slice(0, 3).join(' '),
      body: words.join(' '),
    })
    size += item.length + 1
    items.push(item)
  }
  return '[' + items.join(',') + ']'
}

function numbersDocument(random: () => number): string {
  const rows: number[][] = []
  let size = 0
  while (size < TARGET_BYTES) {
    const row: number[] = []
    for (let i = 0; i < 16; i++) {
      const r = random()
      row.push(
        r < 0.4 ? Math.floor(r * 1e6) : r < 0.7 ? (r - 0.5) * 1e3 : r < 0.9 ? -r * 1e-7 : r * 1e21,
      )
    }
    size += JSON.stringify(row).length + 1
    rows.push(row)
  }
  return JSON.stringify(rows)
}

function nestedDocument(random: () => number): string {
  const parts: string[] = []
  let size = 0
  while (size < TARGET_BYTES) {
    // Chains 50 to 400 deep of objects and arrays, with scalars of every kind at each level.
    const depth = 50 + Math.floor(random() * 350)
    let open = ''
    let close = ''
    for (let d = 0; d < depth; d++) {
      if (random() < 0.5) {
        open += `{"k${d}": true, "n": null, "v": [${d}, -1.5e3, "x"], "c": `
        close = '}' + close
      } else {
        open += `[false, ${d % 7}, {"s": "level ${d}"}, `
        close = ']' + close
      }
    }
    const chain = open + '{}' + close
    size += chain.length + 1
    parts.push(chain)
  }
  return '[' + parts.join(',\n') + ']'
}

/** Milliseconds per call, timing enough calls to fill one round. */
function timeOnce(fn: (text: string) => unknown, text: string, calls: number): number {
  const start = performance.now()
  for (let i = 0; i < calls; i++) sink = fn(text)
  return (performance.now() - start) / calls
}

let sink: unknown

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const validate = (text: string): unknown => validateJson(text)
const parse = (text: string): unknown => JSON.parse(text)

function measure(name: string, text: string): number {
  const ok = validateJson(text)
  if (!ok.ok) throw new Error(`bench document ${name} is not valid JSON: ${JSON.stringify(ok)}`)
  const megabytes = Buffer.byteLength(text, 'utf8') / 1e6

  // Warm both up, then size each round to MIN_ROUND_MS.
  const warm = { validate: 0, parse: 0 }
  for (let i = 0; i < 20; i++) {
    warm.validate = timeOnce(validate, text, 1)
    warm.parse = timeOnce(parse, text, 1)
  }
  const callsV = Math.max(1, Math.ceil(MIN_ROUND_MS / warm.validate))
  const callsP = Math.max(1, Math.ceil(MIN_ROUND_MS / warm.parse))

  const validateRates: number[] = []
  const parseRates: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      validateRates.push(megabytes / (timeOnce(validate, text, callsV) / 1000))
      parseRates.push(megabytes / (timeOnce(parse, text, callsP) / 1000))
    } else {
      parseRates.push(megabytes / (timeOnce(parse, text, callsP) / 1000))
      validateRates.push(megabytes / (timeOnce(validate, text, callsV) / 1000))
    }
  }
  const v = median(validateRates)
  const p = median(parseRates)
  const ratio = v / p
  console.log(
    `json-validate ${name}: ${v.toFixed(0)} MB/s vs JSON.parse ${p.toFixed(0)} MB/s, ` +
      `ratio ${ratio.toFixed(2)} (goal >= ${GOAL}), ${megabytes.toFixed(2)} MB`,
  )
  return ratio
}

const random = prng(20240601)
const documents: [string, string][] = [
  ['strings', stringsDocument(random)],
  ['numbers', numbersDocument(random)],
  ['nested', nestedDocument(random)],
]
const ratios = documents.map(([name, text]) => measure(name, text))
const worst = Math.min(...ratios)
const geomean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)
console.log(
  `json-validate overall: worst ratio ${worst.toFixed(2)}, geometric mean ` +
    `${geomean.toFixed(2)} (goal >= ${GOAL}) ${worst >= GOAL ? 'met' : 'NOT met'}`,
)
void sink
