/**
 * Peak memory of a whole-list read (issue 14, "Pages and streaming"): `GET /api/tickets?state=all`
 * with 100,000 tickets, every one of them in one answer, read from the service as `npm start`
 * runs it (bench/scale/service.ts), in a fresh process each time. Printed: the process's peak
 * resident memory (VmHWM) after the read, less its resident memory just before it.
 *
 * - `json`: the JSON list, streamed in batches since issue 14;
 * - `markdown`: the Markdown list of the same tickets, streamed too since 2026-11-24 (its
 *   heading's count read first by one statement); made whole before, which `LIST_BENCH_ROOT`
 *   at an older commit (6111dd4) measures as the baseline, the cost of holding the list;
 * - `json, 8 at once`: eight clients reading the JSON list together.
 *
 * Run: `tsx bench/list-memory.bench.ts` (DATABASE_URL set: a schema of that server, else an
 * embedded database in a process of its own, so neither counts PGlite). `LIST_BENCH_TICKETS`
 * changes the size; `LIST_BENCH_ROOT` runs the service of another checkout (a "before").
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { startCommand } from '../test/support/start-command.ts'
import { fillBase, fillTickets } from './scale/fill.ts'
import { fmt, serviceDatabase } from './support.ts'

const TICKETS = Number(process.env.LIST_BENCH_TICKETS ?? 100_000)
const ROOT = process.env.LIST_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url))
const MB = 1024 * 1024

const database = await serviceDatabase('list')
const { kind, sql } = database
const secret = randomBytes(32).toString('base64')

/** The service of {@link ROOT} on the bench's database; its tickets URL once it listens. */
async function start(): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, startCommand(), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
      DEV_SIGNIN: '1',
      DATABASE_URL: database.url,
      SESSION_SECRET: secret,
      SERVICES: 'tickets',
    },
  })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^tickets: .*, open (\S+)$/.exec(line)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`src/main.ts exited with ${code}`)))
  })
  return {
    child,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}

/** Reads `path` `clients` times at once in a fresh process; the peak over the resident memory before. */
async function measure(
  path: string,
  headers: Record<string, string>,
  clients: number,
): Promise<{ mb: number; bytes: number; ms: number }> {
  const service = await start()
  try {
    // One small read first, so what the first request loads counts in the baseline.
    await (await fetch(`${service.url}/api/tickets?limit=1`)).text()
    await new Promise((r) => setTimeout(r, 500))
    const before = status(service.child.pid!, 'VmRSS')
    const t0 = performance.now()
    const sizes = await Promise.all(
      Array.from({ length: clients }, async () => {
        const res = await fetch(`${service.url}${path}`, { headers })
        let bytes = 0
        // Read and dropped piece by piece: the bench process holds no list either.
        for await (const piece of res.body!) bytes += (piece as Uint8Array).byteLength
        return bytes
      }),
    )
    const ms = performance.now() - t0
    return { mb: (status(service.child.pid!, 'VmHWM') - before) / MB, bytes: sizes[0]!, ms }
  } finally {
    await service.stop()
  }
}

try {
  // The service migrates its schema on start; the tickets go in afterwards, in bulk.
  await (await start()).stop()
  await fillBase(sql)
  await fillTickets(sql, 0, TICKETS)
  console.log(
    `list memory (${kind}, ${ROOT === fileURLToPath(new URL('..', import.meta.url)) ? 'this checkout' : ROOT}): ${TICKETS.toLocaleString('en')} tickets, GET /api/tickets?state=all`,
  )
  const json = await measure('/api/tickets?state=all', {}, 1)
  const markdown = await measure('/api/tickets?state=all', { accept: 'text/markdown' }, 1)
  const eight = await measure('/api/tickets?state=all', {}, 8)
  const line = (name: string, r: { mb: number; bytes: number; ms: number }) =>
    console.log(
      `  ${name.padEnd(16)} peak +${fmt(r.mb).padStart(6)} MB over the process before the read   ${fmt(r.bytes / MB)} MB answered in ${fmt(r.ms / 1000, 1)} s`,
    )
  line('json', json)
  line('markdown', markdown)
  line('json, 8 at once', eight)
  console.log(`  json / markdown peak: ${fmt(json.mb / markdown.mb, 2)}`)
} finally {
  await database.close()
}
