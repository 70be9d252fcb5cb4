/**
 * The client side of the notes save benchmark, in a process of its own as real clients are:
 * `workers` devices, each signed in as its own user (cookies in NOTES_BENCH_COOKIES, a JSON
 * array), save one note over and over from the `edited` the last save answered, so each save
 * replaces. Prints `{ "perSecond": n }` for `total` saves.
 *
 * Usage: tsx bench/clients/notes-saver.ts <base url> <total saves>
 */
import { keepAliveClient } from '../support.ts'

const [url, totalText] = process.argv.slice(2)
const cookies = JSON.parse(process.env.NOTES_BENCH_COOKIES ?? '[]') as string[]
const total = Number(totalText)
const client = keepAliveClient(url!, cookies.length)
const save = (cookie: string, body: string) => client.call('POST', '/api/notes', { cookie, 'content-type': 'application/json' }, body)

function noteText(n: number): string {
  return `Shopping list ${n}\n- milk\n- bread\n- eggs\n- coffee, the good one\nCall the plumber about the kitchen tap.\n`
}

// A note of its own for each run: the first save creates it (from base 0), the others replace.
const noteId = `bench-${process.pid}`
const bases = cookies.map(() => 0)
let next = 0
const started = performance.now()
await Promise.all(
  cookies.map(async (cookie, w) => {
    while (next < total) {
      const n = next++
      const body = JSON.stringify({ op: 'save', id: noteId, local: 'bench', text: noteText(n), base: bases[w], at: Date.now() })
      const res = await save(cookie, body)
      const answer = JSON.parse(res.text)
      if (res.status !== 200 || answer.copy) throw new Error(`save answered ${res.status} ${res.text.slice(0, 200)}`)
      bases[w] = answer.edited
    }
  }),
)
console.log(JSON.stringify({ perSecond: total / ((performance.now() - started) / 1000) }))
client.close()
