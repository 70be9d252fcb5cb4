/**
 * The client side of the notes save benchmark, in a process of its own as real clients are:
 * `workers` devices, each signed in as its own user (cookies in NOTES_BENCH_COOKIES, a JSON
 * array), save one note over and over from the `edited` the last save answered, so each save
 * replaces.
 *
 * It stays up for all the rounds, as a device stays signed in: for each line `<n>` read from
 * stdin it makes `n` saves and prints `{ "perSecond": x }` on a line; it exits when stdin ends.
 * (A fresh process a round measured its own warm-up: node compiling the client while it ran.)
 *
 * Usage: tsx bench/clients/notes-saver.ts <base url>
 */
import { createInterface } from 'node:readline'
import { HttpConnection } from './http-connection.ts'

const [url] = process.argv.slice(2)
const cookies = JSON.parse(process.env.NOTES_BENCH_COOKIES ?? '[]') as string[]
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

/** Makes `total` saves over all the devices; answers saves per second. */
async function saves(total: number): Promise<number> {
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
  return total / ((performance.now() - started) / 1000)
}

for await (const line of createInterface({ input: process.stdin })) {
  console.log(JSON.stringify({ perSecond: await saves(Number(line)) }))
}
for (const connection of connections) connection.close()
