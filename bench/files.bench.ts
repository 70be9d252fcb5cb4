/**
 * Attached files (issue 39, "Speed"): a 25 MB upload (`POST /api/projects/<slug>/files`) and its
 * download (`GET /files/<id>/<name>`), each timed and each with the rise of the service's
 * resident memory it caused (its peak, VmHWM, reset before each transfer through
 * `/proc/<pid>/clear_refs`, less its resident memory just before). Budget: each under 2 s and
 * under 20 MB. The baseline, in the same run: the same 25 MB sent to and read from a bare
 * node:http server (bench/servers/bytes.ts) that drops what it is sent and sends zeros, the
 * floor of the transfer itself on this machine.
 *
 * Then the ticket page with 20 images in its text (each one of this tracker's files, shown
 * inline) against the same page with none, one client, median and 99th percentile; and the 20
 * images read again with their `ETag` (all 304).
 *
 * Each transfer's CPU time is given too, the service's and the embedded database's process's
 * (from /proc): on this shared machine a transfer's time is mostly the load's, its CPU time is
 * not.
 *
 * The service runs as `npm start` runs it (bench/scale/service.ts): on DATABASE_URL when set (a
 * schema of its own), else on the embedded database, in a process of its own on a TCP port
 * (bench/support.ts, `serviceDatabase`), so that PGlite's memory is not counted as the
 * service's, and in a folder on disk as `npm start` keeps it (`FILES_BENCH_MEMORY=1`: in memory,
 * where PGlite's file system copies a growing file whole at every eighth it grows);
 * `FILES_BENCH_IN_PROCESS=1` runs the embedded database inside the service instead, as
 * `npm start` without DATABASE_URL does, and counts it.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { startService, type RunningService } from './scale/service.ts'
import {
  budgetVerdict,
  cpuMs,
  fmt,
  median,
  percentile,
  serviceDatabase,
  startChild,
} from './support.ts'

const MB = 1024 * 1024
const SIZE = 25 * MB
const ROUNDS = Number(process.env.FILES_BENCH_ROUNDS ?? 3)
const PAGE_READS = 200
const IN_PROCESS = process.env.FILES_BENCH_IN_PROCESS === '1'
const IN_MEMORY = process.env.FILES_BENCH_MEMORY === '1'

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  return (
    Number(
      new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ??
        0,
    ) * 1024
  )
}

interface Measured {
  ms: number
  mb: number
  /** CPU time of the service's process and of the database's (0 when it has none of its own). */
  cpu: number
  dbCpu: number
}

/**
 * Runs `transfer` with the peak resident memory of `pid` reset; answers its time, the peak's
 * rise over the memory before, and the CPU time `pid` and `dbPid` spent meanwhile.
 */
async function measured(
  pid: number,
  dbPid: number | null,
  transfer: () => Promise<void>,
): Promise<Measured> {
  await writeFile(`/proc/${pid}/clear_refs`, '5')
  const before = status(pid, 'VmRSS')
  const cpu0 = cpuMs(pid)
  const db0 = dbPid === null ? 0 : cpuMs(dbPid)
  const t0 = performance.now()
  await transfer()
  const ms = performance.now() - t0
  return {
    ms,
    mb: (status(pid, 'VmHWM') - before) / MB,
    cpu: cpuMs(pid) - cpu0,
    dbCpu: dbPid === null ? 0 : cpuMs(dbPid) - db0,
  }
}

async function readAll(res: Response): Promise<number> {
  let bytes = 0
  for await (const piece of res.body!) bytes += (piece as Uint8Array).byteLength
  return bytes
}

const body = randomBytes(SIZE)
const bare = await startChild('./servers/bytes.ts', [String(SIZE)])
const dataDir = IN_MEMORY && !IN_PROCESS ? null : await mkdtemp(join(tmpdir(), 'files-bench-'))
const database = IN_PROCESS
  ? null
  : await serviceDatabase('files', {}, dataDir ? join(dataDir, 'pglite') : undefined)
let service: RunningService | null = null
try {
  service = await startService(
    IN_PROCESS
      ? { DATA_DIR: dataDir!, SERVICES: 'tickets' }
      : { DATABASE_URL: database!.url, SERVICES: 'tickets' },
  )
  const tickets = service.urls.tickets!
  const pid = service.child.pid!
  // The schema is the service's (migrated at its start); a user, a project and a token go in beside it.
  const sql = database ? database.sql : null
  let token: string
  let slug = 'files-bench'
  if (sql) {
    await sql`insert into users (id, idp_id, name, created) values ('benchuser001', 'idp-bench', 'Bench', 1)`
    await sql`insert into projects (id, slug, title, created) values ('benchproj001', ${slug}, 'Files bench', 1)`
    await sql`insert into project_names (name, project_id) values (${slug}, 'benchproj001'), ('benchproj001', 'benchproj001')`
    await sql`insert into members (project_id, user_id, role) values ('benchproj001', 'benchuser001', 'admin')`
    token = (await issueToken(createTicketStore({ sql, clock: Date.now }), 'benchuser001', 'bench'))
      .token
  } else {
    // In process: the service holds the data directory; sign in through its provider instead.
    token = await tokenBySignIn(service)
    const made = await fetch(`${tickets}/api/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Files bench' }),
    })
    slug = ((await made.json()) as { project: { slug: string } }).project.slug
  }
  const auth = { authorization: `Bearer ${token}` }

  // A warm-up of each path, so what the first request loads counts in the baseline.
  const warm = await fetch(`${tickets}/api/projects/${slug}/files?name=warm.bin`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: randomBytes(2 * MB),
  })
  if (warm.status !== 201) throw new Error(`warm-up upload: ${warm.status} ${await warm.text()}`)
  const dbPid = database?.pid ?? null
  const ups: Measured[] = []
  const downs: Measured[] = []
  const bareUps: number[] = []
  const bareDowns: number[] = []
  const floorUps: number[] = []
  const floorDowns: number[] = []
  if (sql) {
    await sql`create table scratch_chunks (seq int, data bytea)`
    await sql`alter table scratch_chunks alter column data set storage external`
  }
  let url = ''
  for (let round = 0; round < ROUNDS; round++) {
    // A different content each round, so none is deduplicated.
    body.writeUInt32LE(round, 0)
    const t0 = performance.now()
    await readAll(await fetch(`${bare.url}/`, { method: 'POST', body }))
    bareUps.push(performance.now() - t0)
    ups.push(
      await measured(pid, dbPid, async () => {
        const res = await fetch(`${tickets}/api/projects/${slug}/files?name=big-${round}.bin`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/octet-stream' },
          body,
        })
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`)
        url = ((await res.json()) as { file: { url: string } }).file.url
      }),
    )
    const t1 = performance.now()
    await readAll(await fetch(`${bare.url}/`))
    bareDowns.push(performance.now() - t1)
    if (sql) {
      await sql`truncate scratch_chunks`
      const t2 = performance.now()
      for (let seq = 0; seq < SIZE / MB; seq++)
        await sql`insert into scratch_chunks values (${seq}, decode(${body.subarray(seq * MB, (seq + 1) * MB).toString('base64')}, 'base64'))`
      floorUps.push(performance.now() - t2)
      const t3 = performance.now()
      for (let seq = 0; seq < SIZE / MB; seq++)
        Buffer.from(
          (
            await sql<
              { data: string }[]
            >`select encode(data, 'base64') as data from scratch_chunks where seq = ${seq}`
          )[0]!.data,
          'base64',
        )
      floorDowns.push(performance.now() - t3)
    }
    downs.push(
      await measured(pid, dbPid, async () => {
        const res = await fetch(`${tickets}${new URL(url).pathname}`)
        const got = await readAll(res)
        if (got !== SIZE) throw new Error(`download: ${got} bytes`)
      }),
    )
  }
  const med = (xs: number[]) => median(xs)
  const where =
    database?.kind === 'postgres'
      ? 'postgres'
      : `embedded, ${IN_PROCESS ? 'in the service process' : 'a process of its own'}, ${dataDir ? 'on disk' : 'in memory'}`
  console.log(`files (${where}): 25 MB, ${ROUNDS} rounds, medians`)
  const line = (name: string, runs: Measured[], bareMs: number, floorMs: number | null) => {
    const ms = med(runs.map((r) => r.ms))
    const mb = med(runs.map((r) => r.mb))
    const time = budgetVerdict(ms / 1000, 2, 'at most', ' s')
    const memory = budgetVerdict(mb, 20, 'at most', ' MB', 1)
    const floor = floorMs === null ? '' : `, database alone ${fmt(floorMs)} ms`
    const db = dbPid === null ? '' : `, database ${fmt(med(runs.map((r) => r.dbCpu)))} ms`
    console.log(
      `  ${name.padEnd(9)} ${fmt(ms).padStart(6)} ms ${time.text}   resident +${fmt(mb, 1)} MB ${memory.text}   (bare node:http ${fmt(bareMs)} ms${floor})`,
    )
    console.log(`            CPU: service ${fmt(med(runs.map((r) => r.cpu)))} ms${db}`)
  }
  line('upload', ups, med(bareUps), sql ? med(floorUps) : null)
  line('download', downs, med(bareDowns), sql ? med(floorDowns) : null)

  // The ticket page with 20 images against the same page with none.
  const images: string[] = []
  for (let i = 0; i < 20; i++) {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(40_000)])
    const res = await fetch(`${tickets}/api/projects/${slug}/files?name=shot-${i}.png`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    })
    images.push(((await res.json()) as { file: { markdown: string } }).file.markdown)
  }
  const ticket = async (summary: string) => {
    const res = await fetch(`${tickets}/api/projects/${slug}/tickets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'Screens', summary }),
    })
    return ((await res.json()) as { ticket: { number: number } }).ticket.number
  }
  const withImages = await ticket(images.join('\n\n'))
  const without = await ticket('No images here.')
  const times = { with: [] as number[], without: [] as number[] }
  for (let i = 0; i < PAGE_READS; i++) {
    for (const [key, n] of [
      ['with', withImages],
      ['without', without],
    ] as const) {
      const t0 = performance.now()
      const res = await fetch(`${tickets}/${slug}/${n}`, { headers: auth })
      await res.text()
      times[key].push(performance.now() - t0)
    }
  }
  console.log(
    `  ticket page, one client, ${PAGE_READS} reads each (budget: median under 20 ms, 99th percentile under 100 ms):`,
  )
  for (const key of ['with', 'without'] as const) {
    const m = median(times[key])
    const p99 = percentile(times[key], 0.99)
    const verdict = m < 20 && p99 < 100 ? 'met' : 'NOT met'
    console.log(
      `    ${key === 'with' ? '20 images' : 'no image '}  median ${fmt(m, 1)} ms, p99 ${fmt(p99, 1)} ms  ${verdict}`,
    )
  }
  const page = await (await fetch(`${tickets}/${slug}/${withImages}`)).text()
  const srcs = [...page.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) =>
    m[1]!.replaceAll('&amp;', '&'),
  )
  const firsts = await Promise.all(
    srcs.map(async (src) => {
      const res = await fetch(new URL(src, tickets))
      await res.arrayBuffer()
      return res.headers.get('etag')!
    }),
  )
  const t0 = performance.now()
  const statuses = await Promise.all(
    srcs.map(
      async (src, i) =>
        (await fetch(new URL(src, tickets), { headers: { 'if-none-match': firsts[i]! } })).status,
    ),
  )
  console.log(
    `  the page's ${srcs.length} images read again with their ETag: ${statuses.filter((s) => s === 304).length} answered 304, in ${fmt(performance.now() - t0, 1)} ms together`,
  )
} finally {
  await service?.stop()
  await bare.stop()
  await database?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
}

/** A user token through the development provider's sign-in, for the in-process run. */
async function tokenBySignIn(running: RunningService): Promise<string> {
  const base = running.urls.tickets!
  const start = await fetch(`${base}/login?next=/`, { redirect: 'manual' })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', 'bench')
  const back = new URL((await fetch(atProvider, { redirect: 'manual' })).headers.get('location')!)
  const res = await fetch(new URL(`${back.pathname}${back.search}`, base), { redirect: 'manual' })
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('tickets_session='))!
    .split(';')[0]!
  const me = (await (await fetch(`${base}/api/me`, { headers: { cookie } })).json()) as {
    tag: string
  }
  const made = await fetch(`${base}/api/tokens`, {
    method: 'POST',
    headers: { cookie, 'x-tag': me.tag, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'bench' }),
  })
  return ((await made.json()) as { token: string }).token
}
