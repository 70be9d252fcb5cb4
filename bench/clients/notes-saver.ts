/**
 * The client side of the notes save benchmark, in a process of its own as real clients are:
 * `workers` devices, each signed in as its own user (cookies in NOTES_BENCH_COOKIES, a JSON
 * array), save one note over and over from the `edited` the last save answered, so each save
 * replaces. Prints `{ "perSecond": n }` for `total` saves.
 *
 * Usage: tsx bench/clients/notes-saver.ts <base url> <total saves>
 */
import { HttpConnection } from './http-connection.ts'

const [url, totalText] = process.argv.slice(2)
const cookies = JSON.parse(process.env.NOTES_BENCH_COOKIES ?? '[]') as string[]
const total = Number(totalText)
// A connection per device, kept open as a browser keeps it.
const connections = cookies.map(() => new HttpConnection(url!))
const save = (w: number, body: string) =>
  connections[w]!.request('POST', '/api/notes', [`cookie: ${cookies[w]}`, 'content-type: application/json'], body)

function noteText(n: number): string {
  return `Shopping list ${n}\n- milk\n- bread\n- eggs\n- coffee, the good one\nCall the plumber about the kitchen tap.\n`
}

// A note of its own for each run: the first save creates it (from base 0), the others replace.
const noteId = `bench-${process.pid}`
const bases = cookies.map(() => 0)
let next = 0
const started = performance.now()
await Promise.all(
  cookies.map(async (_, w) => {
    while (next < total) {
      const n = next++
      const body = JSON.stringify({ op: 'save', id: noteId, local: 'bench', text: noteText(n), base: bases[w], at: Date.now() })
      const res = await save(w, body)
      const answer = JSON.parse(res.body)
      if (res.status !== 200 || answer.copy) throw new Error(`save answered ${res.status} ${res.body.slice(0, 200)}`)
      bases[w] = answer.edited
    }
  }),
)
console.log(JSON.stringify({ perSecond: total / ((performance.now() - started) / 1000) }))
for (const connection of connections) connection.close()
