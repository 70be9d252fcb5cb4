// Memory of the service as `npm start` runs it: both services in one process, resident memory
// (VmRSS of the process and its children, from /proc, so Linux only) sampled every 100 ms.
// Run: tsx bench/memory.bench.ts   (DATABASE_URL set: that server; unset: the embedded database)
//
// 1. The first start on an empty data directory (embedded only): the highest total while it
//    starts, and the process alone once it listens.
// 2. Idle: a few seconds after the start lines, on a later start.
// 3. Under load: 8 clients for 15 s, each a person of its own signed in through the development
//    provider, saving 1 KB notes (new and edited), listing them, and reading the ticket
//    service's home page; the highest total, and what stays once the load stops.
// Baseline in the same run: a bare `node` process waiting on a timer, started the same way.
// Goal (docs/operations.md, "Memory"): the embedded default fits a 1 GB machine with room to
// spare, that is at most 600 MB at every moment, first start included.

import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '../src/db/client.ts'
import { startOptions } from '../test/support/start-command.ts'
import { startService, type RunningService } from './scale/service.ts'
import { fmt, keepAliveClient } from './support.ts'

const GOAL_MB = 600
const CLIENTS = 8
const LOAD_MS = 15_000
const IDLE_SETTLE_MS = 5_000
const MB = 1024 * 1024

/** Resident bytes of `pid` and every process below it. */
async function treeRss(pid: number): Promise<number> {
  let total = 0
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const m = /VmRSS:\s+(\d+) kB/.exec(status)
  if (m) total += Number(m[1]) * 1024
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
  for (const task of tasks) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')
    for (const child of children.split(' ').filter(Boolean)) total += await treeRss(Number(child))
  }
  return total
}

/** Samples the tree's resident memory every 100 ms until stopped; the highest seen. */
function sampler(pid: number) {
  let peak = 0
  let running = true
  const done = (async () => {
    while (running) {
      peak = Math.max(peak, await treeRss(pid))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return {
    async stop() {
      running = false
      await done
      return peak
    },
  }
}

/** A notes session cookie for `name`, through the development provider as a browser gets one. */
async function signIn(urls: Record<string, string>, name: string): Promise<string> {
  const idp = await fetch(
    `${urls.devIdp}/login?key=dev-key&name=${name}&return=${encodeURIComponent(`${urls.notes}/login/callback`)}`,
    { redirect: 'manual' },
  )
  const back = await fetch(idp.headers.get('location')!, { redirect: 'manual' })
  const cookie = back.headers.getSetCookie().find((c) => c.startsWith('notes_session='))
  if (!cookie) throw new Error(`no session for ${name}: ${back.status}`)
  return cookie.split(';')[0]!
}

async function load(urls: Record<string, string>): Promise<number> {
  const notes = keepAliveClient(urls.notes!, CLIENTS)
  const tickets = keepAliveClient(urls.tickets!, CLIENTS)
  const people = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      signIn(urls, `memory-${i}-${randomBytes(3).toString('hex')}`),
    ),
  )
  const end = Date.now() + LOAD_MS
  let requests = 0
  await Promise.all(
    people.map(async (cookie, i) => {
      const headers = { cookie, 'content-type': 'application/json' }
      for (let n = 0; Date.now() < end; n++) {
        const text = `note ${n} of client ${i}\n${'x'.repeat(1000)}\n`
        const save = await notes.call(
          'POST',
          '/api/notes',
          headers,
          JSON.stringify({
            op: 'save',
            id: `n${n % 200}`,
            local: `bench-${i}`,
            text,
            base: 0,
            at: Date.now(),
          }),
        )
        if (save.status !== 200) throw new Error(`save answered ${save.status}: ${save.text}`)
        const list = await notes.call('GET', '/api/notes', { cookie })
        if (list.status !== 200) throw new Error(`list answered ${list.status}`)
        const home = await tickets.call('GET', '/', {})
        if (home.status !== 200) throw new Error(`tickets home answered ${home.status}`)
        requests += 3
      }
    }),
  )
  notes.close()
  tickets.close()
  return requests
}

const mb = (bytes: number) => fmt(bytes / MB)
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// The baseline: a bare node process, started with the same options.
const bare = spawn(process.execPath, [...startOptions(), '-e', 'setInterval(() => {}, 1e6)'], {
  stdio: 'ignore',
})
await pause(IDLE_SETTLE_MS)
const bareRss = await treeRss(bare.pid!)
bare.kill()
console.log(`baseline: a bare node process with npm start's options: ${mb(bareRss)} MB`)

const figures: { what: string; bytes: number }[] = []
const note = (what: string, bytes: number) => {
  figures.push({ what, bytes })
  console.log(`${what}: ${mb(bytes)} MB (${fmt(bytes / bareRss, 1)}x the bare process)`)
}

// The service's settings; rate limits off, or the bench's own load (one address) would get 429s.
let serviceEnv: Record<string, string>
let cleanup: () => Promise<void>
if (process.env.DATABASE_URL) {
  // A schema of the bench's own on the server, named in the URL's search_path.
  const schema = `bench_mem_${randomBytes(4).toString('hex')}`
  const admin = connect(process.env.DATABASE_URL, { max: 1 })
  await admin.unsafe(`create schema ${schema}`)
  const url = new URL(process.env.DATABASE_URL)
  url.searchParams.set('search_path', schema)
  serviceEnv = { DATABASE_URL: url.href, RATE_LIMIT: 'off' }
  cleanup = async () => {
    await admin.unsafe(`drop schema ${schema} cascade`)
    await admin.end({ timeout: 5 })
  }
  console.log('database: the PostgreSQL server of DATABASE_URL')
} else {
  const dataDir = join(await mkdtemp(join(tmpdir(), 'bench-memory-')), 'data')
  serviceEnv = { DATA_DIR: dataDir, RATE_LIMIT: 'off' }
  cleanup = () => rm(dataDir, { recursive: true, force: true })
  console.log('database: embedded, in a fresh data directory')
  // 1. The first start, with the child that creates the database.
  const started = Date.now()
  let peakOfStart: ReturnType<typeof sampler> | undefined
  const service = await startService(serviceEnv, {
    onSpawn: (child) => (peakOfStart = sampler(child.pid!)),
  })
  const startPeak = await peakOfStart!.stop()
  note(
    `first start on an empty directory, highest total while starting (${fmt((Date.now() - started) / 1000)} s)`,
    startPeak,
  )
  note('first start, the process once it listens', await treeRss(service.child.pid!))
  await service.stop()
}

let service: RunningService | null = null
try {
  // 2. Idle on a later start (on PostgreSQL, the first start: nothing is created in the process).
  service = await startService(serviceEnv)
  await pause(IDLE_SETTLE_MS)
  note('idle, a few seconds after the start lines', await treeRss(service.child.pid!))

  // 3. Under load.
  const loadPeak = sampler(service.child.pid!)
  const started = performance.now()
  const requests = await load(service.urls)
  const seconds = (performance.now() - started) / 1000
  note(
    `under load (${CLIENTS} clients, ${fmt(requests / seconds)} requests/s), highest`,
    await loadPeak.stop(),
  )
  await pause(IDLE_SETTLE_MS)
  note('after the load, idle again', await treeRss(service.child.pid!))
} finally {
  await service?.stop()
  await cleanup()
}

const worst = Math.max(...figures.map((f) => f.bytes))
console.log(
  `memory: at most ${mb(worst)} MB; goal at most ${GOAL_MB} MB at every moment: ${worst / MB <= GOAL_MB ? 'met' : 'MISSED'} (ratio ${fmt(worst / MB / GOAL_MB, 2)})`,
)
