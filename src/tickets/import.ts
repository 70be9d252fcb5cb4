/**
 * Import of tickets from an older tracker (docs/tickets-api.md, "Importing tickets"): a project's
 * tickets from a JSON file, each keeping its old global number, so `/api/tickets/<old number>` and
 * `/tickets/<old number>` keep working.
 *
 * The whole file goes in one transaction: it is imported completely or not at all. Tickets whose
 * old number is already in the project are skipped, so running the same file again is harmless.
 * Imported history emits no live events: nobody has a page open on tickets that did not exist.
 */
import type { Sql, TransactionSql } from '../db.ts'
import { recordId } from '../random.ts'
import { claimSlug } from './slugs.ts'
import { claimName } from './store/projects.ts'
import { isState, type State } from './states.ts'
import { SOURCE_MAX, SUBJECT_MAX, SUMMARY_MAX } from './tickets.ts'
import { resolveUser } from './store/users.ts'

export interface ImportReport {
  project: string
  imported: number
  skipped: number
  /** People named in the file who have not logged in here: kept as names, not linked. */
  warnings: string[]
}

interface ImportedComment {
  author: string
  text: string
  created: number
}

interface ImportedTicket {
  number: number
  subject: string
  summary: string
  state: State
  source: string
  author: string
  assignee: string
  created: number
  parent: number | null
  blockedBy: number[]
  comments: ImportedComment[]
}

interface ImportFile {
  project: { slug: string; title: string; description: string; admin: string }
  tickets: ImportedTicket[]
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: string }

/** Imports a parsed file; refusals name the place in the file. */
export async function importTickets(sql: Sql, data: unknown, now: number): Promise<{ ok: true; report: ImportReport } | { ok: false; error: string }> {
  const checked = checkFile(data, now)
  if (!checked.ok) return checked
  const file = checked.value
  try {
    return await sql.begin((tx) => load(tx, file, now))
  } catch (err) {
    if (err instanceof Refused) return { ok: false, error: err.message }
    throw err
  }
}

/** A refusal found inside the transaction: thrown so it rolls back. */
class Refused extends Error {}

async function load(tx: TransactionSql, file: ImportFile, now: number): Promise<{ ok: true; report: ImportReport }> {
  const warnings = new Set<string>()
  const person = async (name: string): Promise<{ id: string | null; name: string }> => {
    if (name === '') return { id: null, name: 'unknown' }
    const found = await resolveUser(tx, name, 'user')
    if (found.ok) return found.user
    warnings.add(`'${name}' has not logged in here: kept as a name`)
    return { id: null, name }
  }

  const projectId = await projectFor(tx, file.project, now)
  await tx`select id from projects where id = ${projectId} for update`
  const ids = new Map<number, string>()
  let imported = 0
  let skipped = 0
  for (const t of [...file.tickets].sort((a, b) => a.number - b.number)) {
    const [existing] = await tx`select id, project_id from tickets where old_number = ${t.number}`
    if (existing) {
      if (existing.project_id !== projectId) throw new Refused(`old number ${t.number} already belongs to a ticket of another project`)
      ids.set(t.number, existing.id as string)
      skipped++
      continue
    }
    const author = await person(t.author)
    const assignee = t.assignee === '' ? null : await person(t.assignee)
    const [counter] = await tx`update projects set next_number = next_number + 1 where id = ${projectId} returning next_number - 1 as number`
    const [row] = await tx`
      insert into tickets (project_id, number, old_number, subject, summary, source, state, assignee_id, author_id, author_name, created, updated)
      values (${projectId}, ${counter!.number as number}, ${t.number}, ${t.subject}, ${t.summary}, ${t.source}, ${t.state},
        ${assignee?.id ?? null}, ${author.id}, ${author.id === null ? author.name : null}, ${t.created}, ${t.created})
      returning id`
    ids.set(t.number, row!.id as string)
    for (const c of t.comments) {
      const by = await person(c.author)
      await tx`
        insert into ticket_events (ticket_id, kind, user_id, by, data, created)
        values (${row!.id as string}, 'comment', ${by.id}, ${by.name}, ${tx.json({ text: c.text })}, ${c.created})`
    }
    imported++
  }
  const oldId = async (n: number, at: number) => {
    const known = ids.get(n) ?? ((await tx`select id from tickets where old_number = ${n}`)[0]?.id as string | undefined)
    if (known === undefined) throw new Refused(`ticket ${at} names old number ${n}, which is neither in the file nor imported`)
    return known
  }
  for (const t of file.tickets) {
    const id = ids.get(t.number)!
    if (t.parent !== null) await tx`update tickets set parent_id = ${await oldId(t.parent, t.number)} where id = ${id}`
    for (const b of t.blockedBy) {
      await tx`insert into blockers (ticket_id, blocker_id) values (${id}, ${await oldId(b, t.number)}) on conflict do nothing`
    }
  }
  const [cycle] = await tx`
    with recursive up(id, start) as (
      select parent_id, id from tickets where project_id = ${projectId} and parent_id is not null
      union
      select t.parent_id, up.start from tickets t join up on t.id = up.id where t.parent_id is not null
    )
    select 1 from up where id = start limit 1`
  if (cycle) throw new Refused('the parents in the file make a cycle')
  const [slug] = await tx`select slug from projects where id = ${projectId}`
  return { ok: true, report: { project: slug!.slug as string, imported, skipped, warnings: [...warnings] } }
}

/** The project to import into: the one the slug names, or a new one with `admin` as admin. */
async function projectFor(tx: TransactionSql, project: ImportFile['project'], now: number): Promise<string> {
  const [found] = await tx`select project_id from project_names where name = ${project.slug}`
  if (found) return found.project_id as string
  if (project.admin === '') throw new Refused(`project '${project.slug}' does not exist: give project.admin, a person who has logged in, to create it`)
  const admin = await resolveUser(tx, project.admin, 'admin')
  if (!admin.ok) throw new Refused(`project.admin: ${admin.error}`)
  const id = recordId()
  if (!(await claimName(tx, id, id))) throw new Refused('could not make a project id; run the import again')
  const slug = await claimSlug(tx, id, project.slug, project.title)
  if (!slug.ok) throw new Refused(`project.slug: ${slug.error}`)
  await tx`
    insert into projects (id, slug, title, description, created)
    values (${id}, ${slug.slug}, ${project.title || project.slug}, ${project.description}, ${now})`
  await tx`insert into members (project_id, user_id, role) values (${id}, ${admin.user.id}, 'admin')`
  return id
}

// Checking the file's shape before anything is written.

function checkFile(data: unknown, now: number): Checked<ImportFile> {
  if (!isRecord(data)) return fail('the file must hold a JSON object with project and tickets')
  const p = data.project
  if (!isRecord(p) || typeof p.slug !== 'string' || p.slug === '') return fail('project.slug is required')
  for (const key of ['title', 'description', 'admin'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'string') return fail(`project.${key} must be a string`)
  }
  if (!Array.isArray(data.tickets)) return fail('tickets must be a list')
  const tickets: ImportedTicket[] = []
  const seen = new Set<number>()
  for (const [i, raw] of data.tickets.entries()) {
    const t = checkTicket(raw, `tickets[${i}]`, now)
    if (!t.ok) return t
    if (seen.has(t.value.number)) return fail(`tickets[${i}].number ${t.value.number} appears twice`)
    seen.add(t.value.number)
    tickets.push(t.value)
  }
  return {
    ok: true,
    value: {
      project: { slug: p.slug, title: str(p.title), description: str(p.description), admin: str(p.admin) },
      tickets,
    },
  }
}

function checkTicket(raw: unknown, at: string, now: number): Checked<ImportedTicket> {
  if (!isRecord(raw)) return fail(`${at} must be an object`)
  if (!isOldNumber(raw.number)) return fail(`${at}.number must be a whole number from 1`)
  if (typeof raw.subject !== 'string' || raw.subject.trim() === '') return fail(`${at}.subject is required`)
  for (const [key, max] of [['subject', SUBJECT_MAX], ['summary', SUMMARY_MAX], ['source', SOURCE_MAX], ['author', 200], ['assignee', 200]] as const) {
    const value = raw[key]
    if (value !== undefined && typeof value !== 'string') return fail(`${at}.${key} must be a string`)
    if (typeof value === 'string' && value.length > max) return fail(`${at}.${key} is at most ${max} characters`)
  }
  const state = raw.state ?? 'open'
  if (typeof state !== 'string' || !isState(state)) return fail(`${at}.state must be one of open, doing, review, done, dropped`)
  const created = time(raw.created, now)
  if (created === null) return fail(`${at}.created must be milliseconds since 1970 or an ISO 8601 time`)
  if (raw.parent !== undefined && raw.parent !== null && !isOldNumber(raw.parent)) return fail(`${at}.parent must be an old ticket number`)
  const blockedBy = raw.blockedBy ?? []
  if (!Array.isArray(blockedBy) || !blockedBy.every(isOldNumber)) return fail(`${at}.blockedBy must be a list of old ticket numbers`)
  if (blockedBy.includes(raw.number) || raw.parent === raw.number) return fail(`${at} cannot be related to itself`)
  const comments: ImportedComment[] = []
  for (const [j, c] of ((raw.comments ?? []) as unknown[]).entries()) {
    const cat = `${at}.comments[${j}]`
    if (!isRecord(c) || typeof c.text !== 'string') return fail(`${cat}.text is required`)
    if (c.author !== undefined && typeof c.author !== 'string') return fail(`${cat}.author must be a string`)
    const when = time(c.created, created)
    if (when === null) return fail(`${cat}.created must be milliseconds since 1970 or an ISO 8601 time`)
    comments.push({ author: str(c.author), text: c.text, created: when })
  }
  if (raw.comments !== undefined && !Array.isArray(raw.comments)) return fail(`${at}.comments must be a list`)
  return {
    ok: true,
    value: {
      number: raw.number,
      subject: raw.subject,
      summary: str(raw.summary),
      state,
      source: str(raw.source),
      author: str(raw.author),
      assignee: str(raw.assignee),
      created,
      parent: (raw.parent as number | null | undefined) ?? null,
      blockedBy: blockedBy as number[],
      comments,
    },
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function isOldNumber(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2_147_483_647
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function time(v: unknown, fallback: number): number | null {
  if (v === undefined || v === null) return fallback
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : null
  if (typeof v === 'string') {
    const ms = Date.parse(v)
    return Number.isNaN(ms) ? null : ms
  }
  return null
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error }
}
