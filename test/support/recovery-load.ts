/**
 * Both services as `npm start` runs them, on a database the test can stop and restart, under a
 * steady load: writers saving notes and creating tickets, and pages long-polling
 * `GET /api/live`. Every request is recorded (when it began and ended, its answer), so a test can
 * ask which requests failed after the database came back, and whether every acknowledged write
 * is stored.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { connect, type Sql } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createSessions } from '../../src/auth/session.ts'
import { createTicketStore } from '../../src/tickets/store/ticket-store.ts'
import { issueToken } from '../../src/tickets/api/tokens.ts'
import { startCommand } from './start-command.ts'

export interface Outcome {
  kind: 'note save' | 'ticket create' | 'live'
  /** What the write stored: the note's id or the ticket's subject. */
  key: string
  /** performance.now() milliseconds. */
  began: number
  ended: number
  status?: number
  body?: string
  /** The answer's `Retry-After`, if any. */
  retryAfter?: string | null
  /** The error of a request that got no answer (a connection refused or cut, a timeout). */
  error?: string
}

export interface RecoveryLoad {
  outcomes: Outcome[]
  /** Stops the load; resolves once every client has had its last answer. */
  stop(): Promise<void>
}

export interface RunningServices {
  notes: string
  tickets: string
  child: ChildProcess
  /** What the process wrote to stderr (a crash's stack, say). */
  stderr(): string
  /** Starts `writers` writers (half note saves, half ticket creates) and `polls` long-polls. */
  load(writers: number, polls: number): RecoveryLoad
  /** Which of the acknowledged writes in `outcomes` are not stored. */
  missing(outcomes: Outcome[]): Promise<string[]>
  stop(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Makes a migrated schema with one project (`web`), a token and note sessions on the server of
 * `url`, and starts both services on it (`RATE_LIMIT=off`).
 */
export async function startServices(url: string): Promise<RunningServices> {
  const schema = `recovery_${randomBytes(4).toString('hex')}`
  const admin = connect(url, { max: 1 })
  await admin.unsafe(`create schema ${schema}`)
  await admin.end()
  const sql: Sql = connect(url, { max: 2, schema })
  await migrate(sql)
  await sql`insert into users (id, idp_id, name, email, created) values ('u1', 'idp-1', 'Alice', 'alice@example.org', 0)`
  await sql`insert into projects (id, slug, title, description, created) values ('p1', 'web', 'Web', '', 0)`
  await sql`insert into project_names (name, project_id) values ('web', 'p1'), ('p1', 'p1')`
  await sql`insert into members (project_id, user_id, role) values ('p1', 'u1', 'admin')`
  const { token } = await issueToken(createTicketStore({ sql, clock: Date.now }), 'u1', 'load')
  const secret = randomBytes(32)
  const sessions = createSessions({
    sql,
    secret: new Uint8Array(secret),
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const cookies: string[] = []
  for (let i = 0; i < 8; i++) {
    const session = sessions.create()
    session.userId = `note-user-${i}`
    await sessions.save(session)
    cookies.push(sessions.cookie(session).split(';')[0]!)
  }

  const serviceUrl = new URL(url)
  serviceUrl.searchParams.set('search_path', schema)
  const child = spawn(process.execPath, startCommand(), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: serviceUrl.href,
      SESSION_SECRET: secret.toString('base64'),
      SERVICES: 'notes,tickets',
      RATE_LIMIT: 'off',
      HOST: '127.0.0.1',
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
    },
  })
  let stderr = ''
  child.stderr
    .setEncoding('utf8')
    .on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const urls: Record<string, string> = {}
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      // The start-up log ends with `notes: the notes sync service on …, open <url>` (src/app.ts).
      const m = /^(\w+): .*, open (\S+)$/.exec(line)
      if (m) urls[m[1]!] = m[2]!
      if (urls.notes && urls.tickets) resolve()
    })
    void exited.then(() => reject(new Error(`src/main.ts exited: ${stderr}`)))
  })

  let writes = 0
  /** One request; never throws. */
  const call = async (
    kind: Outcome['kind'],
    key: string,
    target: string,
    init: RequestInit,
  ): Promise<Outcome> => {
    const began = performance.now()
    try {
      const res = await fetch(target, { ...init, signal: AbortSignal.timeout(30_000) })
      const body = await res.text()
      return {
        kind,
        key,
        began,
        ended: performance.now(),
        status: res.status,
        body,
        retryAfter: res.headers.get('retry-after'),
      }
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string } }
      return {
        kind,
        key,
        began,
        ended: performance.now(),
        error: e.cause?.code ?? e.name ?? String(err),
      }
    }
  }
  const noteSave = (writer: number) => {
    const id = `n${++writes}`
    const body = JSON.stringify({
      op: 'save',
      id,
      local: 'load',
      text: `note ${id}\n`,
      base: 0,
      at: Date.now(),
    })
    return call('note save', `${writer % 8}/${id}`, `${urls.notes}/api/notes`, {
      method: 'POST',
      headers: { cookie: cookies[writer % 8]!, 'content-type': 'application/json' },
      body,
    })
  }
  const ticketCreate = () => {
    const subject = `ticket ${++writes}`
    return call('ticket create', subject, `${urls.tickets}/api/projects/web/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subject }),
    })
  }

  return {
    notes: urls.notes!,
    tickets: urls.tickets!,
    child,
    stderr: () => stderr,
    load(writers, polls) {
      const outcomes: Outcome[] = []
      let stopped = false
      const loops = [
        ...Array.from({ length: writers }, async (_, w) => {
          while (!stopped) {
            const outcome = await (w % 2 === 0 ? noteSave(w) : ticketCreate())
            outcomes.push(outcome)
            // A refused write is tried again a moment later, as a client told to retry would.
            if (outcome.status !== 200 && outcome.status !== 201) await sleep(20)
          }
        }),
        ...Array.from({ length: polls }, async () => {
          let cursor: number | null = null
          while (!stopped) {
            const outcome = await call(
              'live',
              '',
              `${urls.tickets}/api/live${cursor === null ? '' : `?after=${cursor}`}`,
              {},
            )
            outcomes.push(outcome)
            if (outcome.status === 200)
              cursor = (JSON.parse(outcome.body!) as { cursor: number }).cursor
            else await sleep(20)
          }
        }),
      ]
      return {
        outcomes,
        async stop() {
          stopped = true
          await Promise.all(loops)
        },
      }
    },
    async missing(outcomes) {
      const notes = new Set(
        (
          await sql<
            { key: string }[]
          >`select substr(user_id, 11) || '/' || id as key from notes where user_id like 'note-user-%'`
        ).map((r) => r.key),
      )
      const tickets = new Set(
        (await sql<{ subject: string }[]>`select subject from tickets`).map((r) => r.subject),
      )
      return outcomes
        .filter(
          (o) =>
            (o.kind === 'note save' && o.status === 200 && !notes.has(o.key)) ||
            (o.kind === 'ticket create' && o.status === 201 && !tickets.has(o.key)),
        )
        .map((o) => `${o.kind} ${o.key}`)
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
      await sql.unsafe(`drop schema ${schema} cascade`).catch(() => {})
      await sql.end({ timeout: 5 })
    },
  }
}
