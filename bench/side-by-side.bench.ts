/**
 * The code of a commit and the working tree, side by side: both run as `npm start` runs them, on
 * one database, and the same pages are read from each in alternating batches, so the machine's
 * drift (20% between runs minutes apart on the development machine) falls on both alike. For a
 * change whose effect is a few percent of a page. `SIDE_BY_SIDE_BASE` names the commit (HEAD
 * unless set); `SIDE_BY_SIDE_PAGES` the pages, comma-separated; `SIDE_BY_SIDE_TICKETS` the
 * project's tickets (100,000 on PostgreSQL, 10,000 embedded). Both services migrate the same
 * database, so the two must have the same migrations; both start with the working tree's node
 * options (its package.json's start script).
 *
 * Printed per page: the median over the batches of the service's CPU a read (the figure to
 * compare) and the median time of a read, one client, nothing else in flight.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate } from '../src/db/migrate.ts'
import { fillBase, fillOrganise, fillTickets, projectId, userId } from './scale/fill.ts'
import { startService } from './scale/service.ts'
import { cpuMs, fmt, keepAliveClient, median, serviceDatabase, signedInCookie } from './support.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BASE = process.env.SIDE_BY_SIDE_BASE ?? 'HEAD'
const PAGES = (
  process.env.SIDE_BY_SIDE_PAGES ?? '/project-1,/project-1/1,/inbox,/project-1/board?q=state:all'
).split(',')
const BATCHES = 12
const BATCH = 60

const database = await serviceDatabase('sidebyside', { answerTimeout: null })
const TICKETS = Number(
  process.env.SIDE_BY_SIDE_TICKETS ?? (database.kind === 'postgres' ? 100_000 : 10_000),
)
const base = mkdtempSync(join(tmpdir(), 'side-by-side-'))
const stops: (() => Promise<void>)[] = []
try {
  execFileSync('git', ['worktree', 'add', '--detach', base, BASE], { cwd: ROOT, stdio: 'ignore' })
  symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'))
  const commit = execFileSync('git', ['rev-parse', '--short', BASE], { cwd: ROOT }).toString()
  const { sql } = database
  await migrate(sql)
  await fillBase(sql)
  await fillTickets(sql, 0, TICKETS, 1)
  await fillOrganise(sql, projectId(1))
  await sql`vacuum (analyze)`
  const secret = randomBytes(32)
  const env = {
    DATABASE_URL: database.url,
    SESSION_SECRET: secret.toString('base64'),
    SERVICES: 'tickets',
    RATE_LIMIT: '1000000000,1000000000',
  }
  const services = {
    base: await startService(env, { root: base }),
    work: await startService(env),
  }
  for (const s of Object.values(services)) stops.push(s.stop)
  const cookie = await signedInCookie(sql, new Uint8Array(secret), 'tickets', userId(1))
  const clients = {
    base: keepAliveClient(services.base.urls.tickets!, 1),
    work: keepAliveClient(services.work.urls.tickets!, 1),
  }
  stops.push(async () => Object.values(clients).forEach((c) => c.close()))
  console.log(
    `# ${commit.trim()} (${BASE}) against the working tree: ${database.kind} database, ${fmt(TICKETS)} tickets in one project, both services on core 0 when cores can be pinned; ${BATCHES} batches of ${BATCH} reads of each page from each, alternating, one client`,
  )
  for (const path of PAGES) {
    for (const which of ['base', 'work'] as const) {
      const page = await clients[which].call('GET', path, { cookie })
      if (page.status !== 200 || !page.text.includes('Sign out'))
        throw new Error(`${which}: ${path} answered ${page.status}, not a signed-in page`)
    }
    const cpu = { base: [] as number[], work: [] as number[] }
    const times = { base: [] as number[], work: [] as number[] }
    // The first batch of each warms up.
    for (let batch = -1; batch < BATCHES; batch++) {
      const order = batch % 2 === 0 ? (['base', 'work'] as const) : (['work', 'base'] as const)
      for (const which of order) {
        const pid = services[which].child.pid!
        const before = cpuMs(pid)
        for (let i = 0; i < BATCH; i++) {
          const t = performance.now()
          const got = await clients[which].fetchBytes('GET', path, { cookie })
          if (got.status !== 200) throw new Error(`${which}: ${path} answered ${got.status}`)
          if (batch >= 0) times[which].push(performance.now() - t)
        }
        if (batch >= 0) cpu[which].push((cpuMs(pid) - before) / BATCH)
      }
    }
    console.log(
      `  ${path.padEnd(40)} CPU a read ${fmt(median(cpu.base), 2)} -> ${fmt(median(cpu.work), 2)} ms, time ${fmt(median(times.base), 2)} -> ${fmt(median(times.work), 2)} ms`,
    )
  }
} finally {
  for (const stop of stops.reverse()) await stop()
  await database.close()
  // A commit that could not be checked out left no worktree to remove.
  rmSync(base, { recursive: true, force: true })
  execFileSync('git', ['worktree', 'prune'], { cwd: ROOT, stdio: 'ignore' })
}
