/**
 * (a) A trivial JSON route through our http core and router, with request logging on, against a
 * bare node:http server sending the same bytes. Load comes from autocannon in a second process;
 * the two servers are measured alternately, five rounds each. Goal: at least 0.90.
 */
import { PINNED, fmt, median, requestsPerSecond, startChild } from './support.ts'

const ROUNDS = 5
const bare: number[] = []
const ours: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  for (const [kind, results] of [['bare', bare], ['ours', ours]] as const) {
    const server = await startChild('./servers/trivial.ts', [kind])
    await requestsPerSecond(`${server.url}/api/ping`, { seconds: 1 }) // warm-up
    results.push(await requestsPerSecond(`${server.url}/api/ping`))
    await server.stop()
  }
}
const ratio = median(ours) / median(bare)
console.log(`http trivial route${PINNED ? ' (server on core 0, load on core 1)' : ''}: ours ${fmt(median(ours))} req/s, bare node:http ${fmt(median(bare))} req/s, ratio ${fmt(ratio, 2)} (goal >= 0.90) ${ratio >= 0.9 ? 'MET' : 'NOT MET'}`)
