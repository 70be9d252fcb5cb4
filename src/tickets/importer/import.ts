/**
 * Import of tickets from an older tracker (docs/tickets-api.md, "Importing tickets"): a project's
 * tickets from a JSON file, each keeping its old global number, so `/api/tickets/<old number>` and
 * `/tickets/<old number>` keep working.
 *
 * The whole file goes in one transaction: it is imported completely or not at all. Tickets whose
 * old number is already in the project are skipped, so running the same file again is harmless.
 * Imported history emits no live events: nobody has a page open on tickets that did not exist.
 *
 * A file is read twice as a stream (src/tickets/import-file.ts), never whole: once to check it
 * before anything is written, keeping only the old numbers, and once to write it, a batch of
 * tickets to a statement. Tickets are numbered in the order of their old numbers, whatever the
 * file's order: a ticket's number is its old number's rank among the new ones.
 */
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import type { Sql, TransactionSql } from '../../db/client.ts'
import { recordId } from '../../base/random.ts'
import { claimSlug } from '../rules/slugs.ts'
import { projectTable } from '../store/projects.ts'
import { isState, type State } from '../rules/states.ts'
import { SOURCE_MAX, SUBJECT_MAX, SUMMARY_MAX } from '../rules/lengths.ts'
import { resolveUser } from '../store/users.ts'
import {
  importTable,
  type ImportedLabel,
  type ImportedLink,
  type ImportedMilestone,
  type ImportedRow,
} from '../store/imports.ts'
import {
  cleanColor,
  cleanName,
  isDay,
  LABEL_DESCRIPTION_MAX,
  LABEL_NAME_MAX,
  MILESTONE_TITLE_MAX,
} from '../rules/organise.ts'
import { DESCRIPTION_MAX } from '../rules/lengths.ts'
import { BadJson, fileSource, valueSource, type ImportSource } from './import-file.ts'
import { fileTable, type FileTable } from '../store/files.ts'
import { MB, roomRefusal, writeContent } from '../domain/files.ts'
import {
  cleanFileName,
  fileMarkdown,
  filePath,
  IMAGE_TYPES,
  imageKind,
  mediaType,
} from '../rules/files.ts'
import { refuse, Refusal, type Reason } from '../../http/refusal.ts'
import {
  atPlace,
  importFileEmpty,
  importFileMissing,
  importFileNoFolder,
  importFileNotBase64,
  importFileOutside,
  importFileSource,
  importFileTooLarge,
  badBlockedBy,
  badImportDue,
  badImportLabel,
  badImportLabels,
  badImportMilestone,
  badImportMilestoneEntry,
  badImportState,
  badOldNumber,
  badParent,
  badTime,
  IMPORT_NO_PROJECT_ID,
  IMPORT_NO_SLUG,
  IMPORT_NOT_OBJECT,
  IMPORT_PARENT_CYCLE,
  IMPORT_TICKETS_NOT_LIST,
  importNeedsAdmin,
  importNotJson,
  importTooLong,
  isRequired,
  mustBeList,
  mustBeObject,
  mustBeString,
  notLoggedInHere,
  numberTwice,
  otherProjectsNumber,
  relatedToItself,
  unknownOldNumber,
} from '../rules/messages.ts'

export interface ImportReport {
  project: string
  imported: number
  skipped: number
  /** People named in the file who have not logged in here: kept as names, not linked, in name order. */
  warnings: string[]
}

export interface ImportOptions {
  now: number
  /** Called after each batch written: tickets of the file gone through, and in all. */
  onProgress?: (done: number, total: number) => void
  /** Tickets a statement writes. */
  batch?: number
  /** The limits of attached files: `UPLOAD_MAX_MB` and `PROJECT_FILES_MAX_MB` (25 and 2,000 unless given). */
  uploadMaxMb?: number
  projectFilesMaxMb?: number
}

/** Where an import's files are read from: the export file's folder, or none (a value given whole). */
interface FileContext {
  folder: string | null
  uploadMax: number
}

/** A file attached to an imported ticket: its bytes beside the export (`path`) or in it (`content`). */
interface ImportedFile {
  name: string
  type: string
  path: string | null
  content: string | null
  /** The address the old tracker's texts link it by; replaced in them by the file's new one. */
  url: string | null
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
  files: ImportedFile[]
  /** Label names, as the file spells them. */
  labels: string[]
  /** A milestone title, or empty for none. */
  milestone: string
  due: string | null
}

interface ImportProject {
  slug: string
  title: string
  description: string
  admin: string
  /** The labels the file lists, and those its tickets name that it does not list. */
  labels: ImportedLabel[]
  milestones: ImportedMilestone[]
}

/** What checking a file keeps: its project, and its old numbers in ascending order. */
interface CheckedFile {
  project: ImportProject
  numbers: Int32Array
}

type Checked<T> = { ok: true; value: T } | Refusal
type Imported = { ok: true; report: ImportReport } | Refusal

const BATCH = 1_000

/** Imports a parsed file; refusals name the place in the file. */
export function importTickets(
  sql: Sql,
  data: unknown,
  now: number,
  options: Omit<ImportOptions, 'now'> = {},
): Promise<Imported> {
  return importFrom(sql, valueSource(data), { ...options, now }, null)
}

/** Imports the file at `path`, read as a stream; refusals name the place in the file. */
export function importTicketsFile(
  sql: Sql,
  path: string,
  options: ImportOptions,
): Promise<Imported> {
  return importFrom(sql, fileSource(path), options, dirname(resolve(path)))
}

/** "12,000 of 80,000 tickets, 2,400 a second": the progress line the import script shows. */
export function progressLine(done: number, total: number, seconds: number): string {
  const rate = seconds > 0 ? Math.round(done / seconds) : 0
  return `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} tickets, ${rate.toLocaleString('en-US')} a second`
}

async function importFrom(
  sql: Sql,
  source: ImportSource,
  options: ImportOptions,
  folder: string | null,
): Promise<Imported> {
  try {
    const files = { folder, uploadMax: (options.uploadMaxMb ?? 25) * MB }
    const checked = await checkFile(source, options.now, files)
    if (!checked.ok) return checked
    return await sql.begin((tx) => load(tx, source, checked.value, options, files))
  } catch (err) {
    // A refusal found inside the transaction is thrown so that it rolls back.
    if (err instanceof Refusal) return err
    if (err instanceof BadJson) return refuse(400, importNotJson(err.message))
    throw err
  }
}

async function load(
  tx: TransactionSql,
  source: ImportSource,
  file: CheckedFile,
  options: ImportOptions,
  fileContext: FileContext,
): Promise<{ ok: true; report: ImportReport }> {
  const { now } = options
  const imports = importTable(tx)
  const files = fileTable(tx)
  const room = { maxMb: options.projectFilesMaxMb ?? 2000 }
  const warnings = new Set<string>()
  const people = new Map<string, { id: string | null; name: string }>()
  const person = async (name: string): Promise<{ id: string | null; name: string }> => {
    if (name === '') return { id: null, name: 'unknown' }
    const known = people.get(name)
    if (known) return known
    const found = await resolveUser(tx, name, 'user')
    const who = found.ok ? found.user : { id: null, name }
    if (!found.ok) warnings.add(notLoggedInHere(name))
    people.set(name, who)
    return who
  }

  const projectId = await projectFor(tx, file.project, now)
  await imports.lockProject(projectId)
  const labelIds = await imports.ensureLabels(projectId, file.project.labels, now)
  const milestoneIds = await imports.ensureMilestones(projectId, file.project.milestones, now)

  // The old numbers already imported: skipped if in this project, refused if in another.
  const skipped = new Set<number>()
  for (let i = 0; i < file.numbers.length; i += 10_000) {
    for (const found of await imports.importedBefore(
      Array.from(file.numbers.subarray(i, i + 10_000)),
    )) {
      if (found.projectId !== projectId) throw refuse(400, otherProjectsNumber(found.oldNumber))
      skipped.add(found.oldNumber)
    }
  }
  const fresh = file.numbers.filter((n) => !skipped.has(n))
  const first = await imports.takeNumbers(projectId, fresh.length)

  await imports.startLinks()
  const batchSize = options.batch ?? BATCH
  let rows: ImportedRow[] = []
  let links: ImportedLink[] = []
  let done = 0
  const flush = async () => {
    await imports.insertBatch(projectId, rows)
    await imports.keepLinks(links)
    rows = []
    links = []
    options.onProgress?.(done, file.numbers.length)
  }
  for await (const part of source()) {
    if (part.kind !== 'ticket') continue
    // Checked whole before the transaction began.
    const t = (checkTicket(part.value, '', now) as { ok: true; value: ImportedTicket }).value
    if (t.parent !== null) links.push({ at: t.number, target: t.parent, kind: 'parent' })
    for (const b of t.blockedBy) links.push({ at: t.number, target: b, kind: 'blocker' })
    done++
    if (!skipped.has(t.number)) {
      const author = await person(t.author)
      if (t.files.length > 0) {
        const at = `tickets[${part.index}]`
        const stored = []
        for (const [j, f] of t.files.entries())
          stored.push({
            url: f.url,
            file: await storeFile(
              files,
              fileContext,
              projectId,
              f,
              author,
              t.created,
              room,
              `${at}.files[${j}]`,
            ),
          })
        linkFiles(t, stored)
      }
      const assignee = t.assignee === '' ? null : await person(t.assignee)
      const comments = []
      for (const c of t.comments) {
        const by = await person(c.author)
        comments.push({ userId: by.id, by: by.name, text: c.text, created: c.created })
      }
      rows.push({
        number: first + rankOf(fresh, t.number),
        oldNumber: t.number,
        subject: t.subject,
        summary: t.summary,
        source: t.source,
        state: t.state,
        assigneeId: assignee?.id ?? null,
        authorId: author.id,
        authorName: author.id === null ? author.name : null,
        created: t.created,
        comments,
        labelIds: [...new Set(t.labels.map((l) => labelIds.get(l.toLowerCase())!))],
        milestoneId: t.milestone === '' ? null : milestoneIds.get(t.milestone.toLowerCase())!,
        due: t.due,
      })
    }
    if (rows.length >= batchSize || links.length >= batchSize) await flush()
  }
  await flush()

  const unknown = await imports.applyLinks()
  if (unknown) throw refuse(400, unknownOldNumber(unknown.at, unknown.target))
  if (await imports.hasParentCycle(projectId)) throw refuse(400, IMPORT_PARENT_CYCLE)
  const project = await projectTable(tx).byId(projectId)
  return {
    ok: true,
    report: {
      project: project!.slug,
      imported: fresh.length,
      skipped: skipped.size,
      warnings: [...warnings].sort(),
    },
  }
}

/**
 * Stores one imported file as an upload is stored (src/tickets/api/files.ts): streamed in chunks,
 * its name cleaned, an image recognised by its first bytes (else served as an attachment), the
 * same content kept once in the project, and the project's room (`PROJECT_FILES_MAX_MB`) kept.
 * Its uploader is the ticket's author, at the ticket's time.
 */
async function storeFile(
  files: FileTable,
  context: FileContext,
  projectId: string,
  f: ImportedFile,
  by: { id: string | null; name: string },
  created: number,
  room: { maxMb: number },
  at: string,
) {
  const contentId = await files.begin(projectId, created)
  const written = await writeContent(files, contentId, fileBytes(f, context, at))
  const image = imageKind(written.head)
  const done = await files.finish(
    { user: by, app: null, now: created },
    {
      projectId,
      contentId,
      sha256: written.sha256,
      size: written.size,
      name: cleanFileName(f.name),
      type: image !== null ? IMAGE_TYPES[image] : mediaType(f.type),
      image,
      projectMax: room.maxMb * MB,
    },
  )
  if (!done.ok) throw refuse(400, atPlace(at, roomRefusal(done.use, room)))
  return done.file
}

/** An imported file's bytes, a piece at a time; refused when it grew past the limit since it was checked. */
async function* fileBytes(f: ImportedFile, context: FileContext, at: string) {
  if (f.content !== null) {
    const bytes = Buffer.from(f.content, 'base64')
    for (let i = 0; i < bytes.length; i += CHUNK_PIECE) yield bytes.subarray(i, i + CHUNK_PIECE)
    return
  }
  let size = 0
  for await (const piece of createReadStream(resolve(context.folder!, f.path!), {
    highWaterMark: CHUNK_PIECE,
  }) as AsyncIterable<Buffer>) {
    size += piece.length
    if (size > context.uploadMax) throw refuse(400, importFileTooLarge(at, context.uploadMax / MB))
    yield piece
  }
}

/** Pieces an imported file is read in. */
const CHUNK_PIECE = 256 * 1024

/**
 * Links a ticket's stored files from its text: where the summary or a comment links a file by
 * its old address (`url`), the new address takes its place; a file no text links is linked from
 * a line added to the summary, so every imported file belongs to its ticket (`has:file`, the
 * ticket page's Files, the sweep).
 */
function linkFiles(
  t: ImportedTicket,
  stored: { url: string | null; file: Parameters<typeof fileMarkdown>[0] }[],
): void {
  const unlinked: string[] = []
  for (const { url, file } of stored) {
    const path = filePath(file.id, file.name)
    const found =
      url !== null &&
      (t.summary.includes(url) ||
        t.subject.includes(url) ||
        t.comments.some((c) => c.text.includes(url)))
    if (found) {
      t.summary = t.summary.replaceAll(url, path)
      for (const c of t.comments) c.text = c.text.replaceAll(url, path)
    } else unlinked.push(fileMarkdown(file))
  }
  if (unlinked.length > 0)
    t.summary = `${t.summary}${t.summary === '' ? '' : '\n\n'}${unlinked.join('\n')}`
}

/** Where `n` is in the ascending `numbers` (it is there). */
function rankOf(numbers: Int32Array, n: number): number {
  let lo = 0
  let hi = numbers.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (numbers[mid]! < n) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The project to import into: the one the slug names, or a new one with `admin` as admin. */
async function projectFor(
  tx: TransactionSql,
  project: ImportProject,
  now: number,
): Promise<string> {
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
  await projects.insert(
    {
      id,
      slug: slug.slug,
      title: project.title || project.slug,
      description: project.description,
      created: now,
    },
    admin.user.id,
  )
  return id
}

/**
 * Reads the file through once before anything is written. The refusals come in the order a
 * whole file's checks give them: its shape, then its project, then the first bad ticket.
 */
async function checkFile(
  source: ImportSource,
  now: number,
  files: FileContext,
): Promise<Checked<CheckedFile>> {
  let project: unknown
  let ticketsNotList = false
  let badTicket: Refusal | null = null
  const seen = new Set<number>()
  // The labels and milestones the tickets name, by lower-case name, as first spelt.
  const labelNames = new Map<string, string>()
  const milestoneTitles = new Map<string, string>()
  for await (const part of source()) {
    if (part.kind === 'notObject') return fail(IMPORT_NOT_OBJECT)
    if (part.kind === 'project') project = part.value
    else if (part.kind === 'ticketsNotList') ticketsNotList = true
    else if (badTicket === null) {
      const at = `tickets[${part.index}]`
      const t = checkTicket(part.value, at, now)
      if (!t.ok) badTicket = t
      else if (seen.has(t.value.number)) badTicket = fail(numberTwice(at, t.value.number))
      else {
        seen.add(t.value.number)
        for (const [j, f] of t.value.files.entries()) {
          badTicket = await checkFileBytes(f, `${at}.files[${j}]`, files)
          if (badTicket) break
        }
        for (const l of t.value.labels)
          if (!labelNames.has(l.toLowerCase())) labelNames.set(l.toLowerCase(), l)
        const m = t.value.milestone
        if (m !== '' && !milestoneTitles.has(m.toLowerCase()))
          milestoneTitles.set(m.toLowerCase(), m)
      }
    }
  }
  const p = project
  if (!isRecord(p) || typeof p.slug !== 'string' || p.slug === '') return fail(IMPORT_NO_SLUG)
  for (const key of ['title', 'description', 'admin'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'string')
      return fail(mustBeString(`project.${key}`))
  }
  const labels = checkLabels(p.labels)
  if (!labels.ok) return labels
  const milestones = checkMilestones(p.milestones)
  if (!milestones.ok) return milestones
  if (ticketsNotList) return fail(IMPORT_TICKETS_NOT_LIST)
  if (badTicket) return badTicket
  // A label or milestone a ticket names that the file does not list is made plainly.
  const listed = new Set(labels.value.map((l) => l.name.toLowerCase()))
  for (const [lower, name] of labelNames)
    if (!listed.has(lower)) labels.value.push({ name, color: DEFAULT_COLOR, description: '' })
  const titled = new Set(milestones.value.map((m) => m.title.toLowerCase()))
  for (const [lower, title] of milestoneTitles)
    if (!titled.has(lower))
      milestones.value.push({ title, due: null, description: '', closed: false })
  const numbers = Int32Array.from(seen).sort()
  return {
    ok: true,
    value: {
      project: {
        slug: p.slug,
        title: str(p.title),
        description: str(p.description),
        admin: str(p.admin),
        labels: labels.value,
        milestones: milestones.value,
      },
      numbers,
    },
  }
}

function checkTicket(raw: unknown, at: string, now: number): Checked<ImportedTicket> {
  if (!isRecord(raw)) return fail(mustBeObject(at))
  if (!isOldNumber(raw.number)) return fail(badOldNumber(at))
  if (typeof raw.subject !== 'string' || raw.subject.trim() === '')
    return fail(isRequired(`${at}.subject`))
  for (const [key, max] of [
    ['subject', SUBJECT_MAX],
    ['summary', SUMMARY_MAX],
    ['source', SOURCE_MAX],
    ['author', 200],
    ['assignee', 200],
  ] as const) {
    const value = raw[key]
    if (value !== undefined && typeof value !== 'string') return fail(mustBeString(`${at}.${key}`))
    if (typeof value === 'string' && value.length > max)
      return fail(importTooLong(`${at}.${key}`, max))
  }
  const state = raw.state ?? 'open'
  if (typeof state !== 'string' || !isState(state)) return fail(badImportState(at))
  const created = time(raw.created, now)
  if (created === null) return fail(badTime(at))
  if (raw.parent !== undefined && raw.parent !== null && !isOldNumber(raw.parent))
    return fail(badParent(at))
  const blockedBy = raw.blockedBy ?? []
  if (!Array.isArray(blockedBy) || !blockedBy.every(isOldNumber)) return fail(badBlockedBy(at))
  if (blockedBy.includes(raw.number) || raw.parent === raw.number) return fail(relatedToItself(at))
  const comments: ImportedComment[] = []
  for (const [j, c] of ((raw.comments ?? []) as unknown[]).entries()) {
    const cat = `${at}.comments[${j}]`
    if (!isRecord(c) || typeof c.text !== 'string') return fail(isRequired(`${cat}.text`))
    if (c.author !== undefined && typeof c.author !== 'string')
      return fail(mustBeString(`${cat}.author`))
    const when = time(c.created, created)
    if (when === null) return fail(badTime(cat))
    comments.push({ author: str(c.author), text: c.text, created: when })
  }
  if (raw.comments !== undefined && !Array.isArray(raw.comments))
    return fail(mustBeList(`${at}.comments`))
  if (raw.files !== undefined && !Array.isArray(raw.files)) return fail(mustBeList(`${at}.files`))
  const files: ImportedFile[] = []
  for (const [j, f] of ((raw.files ?? []) as unknown[]).entries()) {
    const fat = `${at}.files[${j}]`
    if (!isRecord(f)) return fail(mustBeObject(fat))
    if (typeof f.name !== 'string' || f.name.trim() === '') return fail(isRequired(`${fat}.name`))
    for (const key of ['type', 'path', 'content', 'url'] as const)
      if (f[key] !== undefined && f[key] !== null && typeof f[key] !== 'string')
        return fail(mustBeString(`${fat}.${key}`))
    const path = typeof f.path === 'string' && f.path !== '' ? f.path : null
    const content = typeof f.content === 'string' ? f.content.replace(/\s+/g, '') : null
    if ((path === null) === (content === null)) return fail(importFileSource(fat))
    if (content !== null && !BASE64.test(content)) return fail(importFileNotBase64(fat))
    files.push({
      name: f.name,
      type: str(f.type),
      path,
      content,
      url: typeof f.url === 'string' && f.url !== '' ? f.url : null,
    })
  }
  const labels = raw.labels ?? []
  if (
    !Array.isArray(labels) ||
    !labels.every((l) => typeof l === 'string' && cleanName(l, LABEL_NAME_MAX) !== null)
  )
    return fail(badImportLabels(at))
  const milestone = raw.milestone ?? ''
  if (
    typeof milestone !== 'string' ||
    (milestone !== '' && cleanName(milestone, MILESTONE_TITLE_MAX) === null)
  )
    return fail(badImportMilestone(at))
  const due = raw.due ?? null
  if (due !== null && (typeof due !== 'string' || !isDay(due))) return fail(badImportDue(at))
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
      parent: raw.parent ?? null,
      blockedBy: blockedBy,
      comments,
      files,
      labels: (labels as string[]).map((l) => cleanName(l, LABEL_NAME_MAX)!),
      milestone: milestone === '' ? '' : cleanName(milestone, MILESTONE_TITLE_MAX)!,
      due,
    },
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/

/**
 * The checks of a file's bytes before anything is written: a path names a regular file inside
 * the export's folder (also after its links are followed), and no file is empty or larger than
 * `UPLOAD_MAX_MB`.
 */
async function checkFileBytes(
  f: ImportedFile,
  at: string,
  context: FileContext,
): Promise<Refusal | null> {
  let size: number
  if (f.content !== null) {
    const padding = f.content.endsWith('==') ? 2 : f.content.endsWith('=') ? 1 : 0
    size = Math.floor((f.content.length * 3) / 4) - padding
  } else {
    if (context.folder === null) return fail(importFileNoFolder(at))
    if (isAbsolute(f.path!)) return fail(importFileOutside(at))
    const inside = (p: string, folder: string) => {
      const r = relative(folder, p)
      return r !== '' && !isAbsolute(r) && r !== '..' && !r.startsWith(`..${sep}`)
    }
    const named = resolve(context.folder, f.path!)
    if (!inside(named, context.folder)) return fail(importFileOutside(at))
    let real: string
    try {
      real = await realpath(named)
    } catch {
      return fail(importFileMissing(at, f.path!))
    }
    if (!inside(real, await realpath(context.folder))) return fail(importFileOutside(at))
    const info = await stat(real)
    if (!info.isFile()) return fail(importFileMissing(at, f.path!))
    size = info.size
  }
  if (size === 0) return fail(importFileEmpty(at))
  if (size > context.uploadMax) return fail(importFileTooLarge(at, context.uploadMax / MB))
  return null
}

/** The colour of a label the file names without listing it. */
const DEFAULT_COLOR = '#ededed'

/** `project.labels`: a list of `{ name, color?, description? }`. */
function checkLabels(raw: unknown): Checked<ImportedLabel[]> {
  if (raw === undefined) return { ok: true, value: [] }
  if (!Array.isArray(raw)) return fail(mustBeList('project.labels'))
  const labels: ImportedLabel[] = []
  for (const [i, l] of raw.entries()) {
    const at = `project.labels[${i}]`
    if (!isRecord(l) || typeof l.name !== 'string') return fail(badImportLabel(at))
    const name = cleanName(l.name, LABEL_NAME_MAX)
    const color =
      l.color === undefined
        ? DEFAULT_COLOR
        : typeof l.color === 'string'
          ? cleanColor(l.color)
          : null
    const description = l.description ?? ''
    if (name === null || color === null) return fail(badImportLabel(at))
    if (typeof description !== 'string' || description.length > LABEL_DESCRIPTION_MAX)
      return fail(badImportLabel(at))
    labels.push({ name, color, description })
  }
  return { ok: true, value: labels }
}

/** `project.milestones`: a list of `{ title, due?, description?, state? }`. */
function checkMilestones(raw: unknown): Checked<ImportedMilestone[]> {
  if (raw === undefined) return { ok: true, value: [] }
  if (!Array.isArray(raw)) return fail(mustBeList('project.milestones'))
  const milestones: ImportedMilestone[] = []
  for (const [i, m] of raw.entries()) {
    const at = `project.milestones[${i}]`
    if (!isRecord(m) || typeof m.title !== 'string') return fail(badImportMilestoneEntry(at))
    const title = cleanName(m.title, MILESTONE_TITLE_MAX)
    const due = m.due ?? null
    const description = m.description ?? ''
    const state = m.state ?? 'open'
    if (
      title === null ||
      (due !== null && (typeof due !== 'string' || !isDay(due))) ||
      typeof description !== 'string' ||
      description.length > DESCRIPTION_MAX ||
      (state !== 'open' && state !== 'closed')
    )
      return fail(badImportMilestoneEntry(at))
    milestones.push({ title, due, description, closed: state === 'closed' })
  }
  return { ok: true, value: milestones }
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
