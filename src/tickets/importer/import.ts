/**
 * Import of tickets from an older tracker (docs/tickets-api.md, "Importing tickets"): a project's
 * tickets from a JSON file, each keeping its old global number, so `/api/tickets/<old number>` and
 * `/tickets/<old number>` keep working.
 *
 * The whole file goes in one transaction: it is imported completely or not at all. Tickets whose
 * old number is already in the project are skipped, so running the same file again is harmless.
 * Imported history emits no live events: nobody has a page open on tickets that did not exist.
 */
import type { Sql, TransactionSql } from '../../db/client.ts'
import { recordId } from '../../base/random.ts'
import { claimSlug } from '../rules/slugs.ts'
import { importTable } from '../store/imports.ts'
import { projectTable } from '../store/projects.ts'
import { isState, type State } from '../rules/states.ts'
import { SOURCE_MAX, SUBJECT_MAX, SUMMARY_MAX } from '../rules/lengths.ts'
import { resolveUser } from '../store/users.ts'
import { refuse, Refusal, type Reason } from '../../http/refusal.ts'
import {
  atPlace, badBlockedBy, badImportState, badOldNumber, badParent, badTime, IMPORT_NO_PROJECT_ID, IMPORT_NO_SLUG, IMPORT_NOT_OBJECT, IMPORT_PARENT_CYCLE,
  IMPORT_TICKETS_NOT_LIST, importNeedsAdmin, importTooLong, isRequired, mustBeList, mustBeObject, mustBeString, notLoggedInHere, numberTwice,
  otherProjectsNumber, relatedToItself, unknownOldNumber,
} from '../rules/messages.ts'

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

type Checked<T> = { ok: true; value: T } | Refusal

/** Imports a parsed file; refusals name the place in the file. */
export async function importTickets(sql: Sql, data: unknown, now: number): Promise<{ ok: true; report: ImportReport } | Refusal> {
  const checked = checkFile(data, now)
  if (!checked.ok) return checked
  const file = checked.value
  try {
    return await sql.begin((tx) => load(tx, file, now))
  } catch (err) {
    // A refusal found inside the transaction is thrown so that it rolls back.
    if (err instanceof Refusal) return err
    throw err
  }
}

async function load(tx: TransactionSql, file: ImportFile, now: number): Promise<{ ok: true; report: ImportReport }> {
  const imports = importTable(tx)
  const projects = projectTable(tx)
  const warnings = new Set<string>()
  const person = async (name: string): Promise<{ id: string | null; name: string }> => {
    if (name === '') return { id: null, name: 'unknown' }
    const found = await resolveUser(tx, name, 'user')
    if (found.ok) return found.user
    warnings.add(notLoggedInHere(name))
    return { id: null, name }
  }

  const projectId = await projectFor(tx, file.project, now)
  await imports.lockProject(projectId)
  const ids = new Map<number, string>()
  let imported = 0
  let skipped = 0
  for (const t of [...file.tickets].sort((a, b) => a.number - b.number)) {
    const existing = await imports.byOldNumber(t.number)
    if (existing) {
      if (existing.projectId !== projectId) throw refuse(400, otherProjectsNumber(t.number))
      ids.set(t.number, existing.id)
      skipped++
      continue
    }
    const author = await person(t.author)
    const assignee = t.assignee === '' ? null : await person(t.assignee)
    const id = await imports.insert({
      projectId, oldNumber: t.number, subject: t.subject, summary: t.summary, source: t.source, state: t.state,
      assigneeId: assignee?.id ?? null, authorId: author.id, authorName: author.id === null ? author.name : null, created: t.created,
    })
    ids.set(t.number, id)
    for (const c of t.comments) await imports.insertComment(id, await person(c.author), c.text, c.created)
    imported++
  }
  const oldId = async (n: number, at: number) => {
    const known = ids.get(n) ?? (await imports.byOldNumber(n))?.id
    if (known === undefined) throw refuse(400, unknownOldNumber(at, n))
    return known
  }
  for (const t of file.tickets) {
    const id = ids.get(t.number)!
    if (t.parent !== null) await imports.setParent(id, await oldId(t.parent, t.number))
    for (const b of t.blockedBy) await imports.addBlocker(id, await oldId(b, t.number))
  }
  if (await imports.hasParentCycle(projectId)) throw refuse(400, IMPORT_PARENT_CYCLE)
  const project = await projects.byId(projectId)
  return { ok: true, report: { project: project!.slug, imported, skipped, warnings: [...warnings] } }
}

/** The project to import into: the one the slug names, or a new one with `admin` as admin. */
async function projectFor(tx: TransactionSql, project: ImportFile['project'], now: number): Promise<string> {
  const found = await importTable(tx).projectIdByName(project.slug)
  if (found !== null) return found
  if (project.admin === '') throw refuse(400, importNeedsAdmin(project.slug))
  const admin = await resolveUser(tx, project.admin, 'admin')
  if (!admin.ok) throw refuse(400, atPlace('project.admin', admin))
  const id = recordId()
  const projects = projectTable(tx)
  if (!(await projects.claimName(id, id))) throw refuse(400, IMPORT_NO_PROJECT_ID)
  const slug = await claimSlug((name) => projects.claimName(id, name), project.slug, project.title)
  if (!slug.ok) throw refuse(400, atPlace('project.slug', slug))
  await projects.insert({ id, slug: slug.slug, title: project.title || project.slug, description: project.description, created: now }, admin.user.id)
  return id
}

// Checking the file's shape before anything is written.

function checkFile(data: unknown, now: number): Checked<ImportFile> {
  if (!isRecord(data)) return fail(IMPORT_NOT_OBJECT)
  const p = data.project
  if (!isRecord(p) || typeof p.slug !== 'string' || p.slug === '') return fail(IMPORT_NO_SLUG)
  for (const key of ['title', 'description', 'admin'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'string') return fail(mustBeString(`project.${key}`))
  }
  if (!Array.isArray(data.tickets)) return fail(IMPORT_TICKETS_NOT_LIST)
  const tickets: ImportedTicket[] = []
  const seen = new Set<number>()
  for (const [i, raw] of data.tickets.entries()) {
    const t = checkTicket(raw, `tickets[${i}]`, now)
    if (!t.ok) return t
    if (seen.has(t.value.number)) return fail(numberTwice(`tickets[${i}]`, t.value.number))
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
  if (!isRecord(raw)) return fail(mustBeObject(at))
  if (!isOldNumber(raw.number)) return fail(badOldNumber(at))
  if (typeof raw.subject !== 'string' || raw.subject.trim() === '') return fail(isRequired(`${at}.subject`))
  for (const [key, max] of [['subject', SUBJECT_MAX], ['summary', SUMMARY_MAX], ['source', SOURCE_MAX], ['author', 200], ['assignee', 200]] as const) {
    const value = raw[key]
    if (value !== undefined && typeof value !== 'string') return fail(mustBeString(`${at}.${key}`))
    if (typeof value === 'string' && value.length > max) return fail(importTooLong(`${at}.${key}`, max))
  }
  const state = raw.state ?? 'open'
  if (typeof state !== 'string' || !isState(state)) return fail(badImportState(at))
  const created = time(raw.created, now)
  if (created === null) return fail(badTime(at))
  if (raw.parent !== undefined && raw.parent !== null && !isOldNumber(raw.parent)) return fail(badParent(at))
  const blockedBy = raw.blockedBy ?? []
  if (!Array.isArray(blockedBy) || !blockedBy.every(isOldNumber)) return fail(badBlockedBy(at))
  if (blockedBy.includes(raw.number) || raw.parent === raw.number) return fail(relatedToItself(at))
  const comments: ImportedComment[] = []
  for (const [j, c] of ((raw.comments ?? []) as unknown[]).entries()) {
    const cat = `${at}.comments[${j}]`
    if (!isRecord(c) || typeof c.text !== 'string') return fail(isRequired(`${cat}.text`))
    if (c.author !== undefined && typeof c.author !== 'string') return fail(mustBeString(`${cat}.author`))
    const when = time(c.created, created)
    if (when === null) return fail(badTime(cat))
    comments.push({ author: str(c.author), text: c.text, created: when })
  }
  if (raw.comments !== undefined && !Array.isArray(raw.comments)) return fail(mustBeList(`${at}.comments`))
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

function fail(why: Reason): Refusal {
  return refuse(400, why)
}
