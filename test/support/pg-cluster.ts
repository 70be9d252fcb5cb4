/**
 * A private PostgreSQL cluster for tests that stop and restart the database under a running
 * service: made with `initdb` in a temporary directory, run by `pg_ctl` on a port of its own, so
 * the shared server of `DATABASE_URL` is never touched. The binaries are the server's own
 * (`pg_config --bindir`, else the newest `/usr/lib/postgresql/<version>/bin`); `PG_BIN` names
 * another directory. PostgreSQL refuses to run as root, so as root the commands run as the
 * `postgres` system user (`runuser`).
 *
 * {@link findPgBinaries} says why there is no cluster to be had (no binaries, say), for a test to
 * skip with that reason.
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './ports.ts'

const run = promisify(execFile)

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string
  port: number
  /** `pg_ctl stop -m <mode>`: every connection is closed and new ones are refused. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  /** `pg_ctl start -w`: resolves once the server accepts connections. */
  start(): Promise<void>
  /** `pg_ctl restart -m <mode> -w`: resolves once the server accepts connections again. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>
  /** Stops the server and deletes its directory. */
  close(): Promise<void>
}

/** The directory of `initdb` and `pg_ctl`, or why there is none. */
export function findPgBinaries(): { bin: string } | { missing: string } {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))
  if (process.env.PG_BIN)
    return has(process.env.PG_BIN)
      ? { bin: process.env.PG_BIN }
      : { missing: `PG_BIN (${process.env.PG_BIN}) holds no initdb and pg_ctl` }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
    if (has(dir)) return { bin: dir }
  } catch {
    // No pg_config on the path: look where Debian and Ubuntu install the server.
  }
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : []
  for (const v of versions) if (has(join(root, v, 'bin'))) return { bin: join(root, v, 'bin') }
  return {
    missing:
      'no PostgreSQL server binaries (initdb, pg_ctl) on this machine: install the server, or set PG_BIN to their directory',
  }
}

/** Why a private cluster cannot run here, or null when it can. */
export function privateClusterUnavailable(): string | null {
  if (process.env.TEST_DATABASE_KIND !== 'postgres')
    return 'the private-cluster tests run in the PostgreSQL pass (DATABASE_URL set); this pass is on the embedded database'
  const found = findPgBinaries()
  if ('missing' in found) return found.missing
  if (userInfo().uid === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' })
    } catch {
      return 'running as root, and there is no postgres system user to run the server as'
    }
  }
  return null
}

/** Makes and starts a cluster; it is stopped and deleted by `close()`. */
export async function startPgCluster(): Promise<PgCluster> {
  const found = findPgBinaries()
  if ('missing' in found) throw new Error(found.missing)
  const { bin } = found
  const asRoot = userInfo().uid === 0
  const dir = await mkdtemp(join(tmpdir(), 'pg-cluster-'))
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const data = join(dir, 'data')
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : run(join(bin, tool), args)
  await pg('initdb', [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '--no-instructions',
  ])
  const port = await freePort()
  // Its socket in its own directory, no fsync (a test's data need not survive a power cut), and
  // few connections; the log beside the data, for a failing test to read.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=40`
  const ctl = (args: string[]) =>
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, ...args])
  await ctl(['start', '-w', '-t', '60'])
  let running = true
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop(mode = 'fast') {
      await ctl(['stop', '-m', mode, '-w', '-t', '60'])
      running = false
    },
    async start() {
      await ctl(['start', '-w', '-t', '60'])
      running = true
    },
    async restart(mode = 'fast') {
      await ctl(['restart', '-m', mode, '-w', '-t', '60'])
      running = true
    },
    async close() {
      if (running) await ctl(['stop', '-m', 'immediate', '-w', '-t', '60']).catch(() => {})
      running = false
      await rm(dir, { recursive: true, force: true })
    },
  }
}
