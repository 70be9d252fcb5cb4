/**
 * Importing notes: the texts found in the files a person picks, without the page. Understood:
 * Markdown and text files (`.md`, `.markdown`, `.txt`), alone, in a folder or in a zip (through
 * `fflate`), this app's own export (its `notes.json` is read for the times and the rest left
 * out), Simplenote's JSON export (`activeNotes`, tags written as `#tag`) and Standard Notes'
 * JSON backup (notes and their tags; an encrypted backup is said to be one and skipped).
 * A note's first line is its title, as for any note; a file with no words is skipped.
 *
 * @module
 */
import { strFromU8, unzipSync } from 'fflate'
import { isTagName } from './tags.ts'

/** A file as picked: its path (in its folder or zip) and its bytes. */
export interface PickedFile {
  path: string
  bytes: Uint8Array
}

/** A note found in the files. */
export interface ImportedNote {
  text: string
}

/** What the files gave: the notes, and the files passed over with why. */
export interface ImportResult {
  notes: ImportedNote[]
  skipped: { path: string; why: string }[]
}

const TEXT_FILE = /\.(md|markdown|txt|text)$/i
/** Files a system or an editor leaves beside the notes, passed over without a word. */
const CLUTTER = /(^|\/)(\.[^/]*|__MACOSX\/.*|Thumbs\.db|desktop\.ini)$/i

/** The notes found in `files`. */
export function importFiles(files: readonly PickedFile[]): ImportResult {
  const result: ImportResult = { notes: [], skipped: [] }
  for (const file of files) readFile(file, result)
  return result
}

function readFile(file: PickedFile, result: ImportResult): void {
  if (CLUTTER.test(file.path)) return
  if (/\.zip$/i.test(file.path)) return readZip(file, result)
  if (/\.json$/i.test(file.path)) return readJson(file, result)
  if (TEXT_FILE.test(file.path)) return addText(file, result)
  result.skipped.push({ path: file.path, why: 'not a text, Markdown, zip or JSON file' })
}

function decode(bytes: Uint8Array): string {
  // A byte-order mark is no part of the text; Windows line ends stay as they are.
  return strFromU8(bytes).replace(/^\uFEFF/, '')
}

function addText(file: PickedFile, result: ImportResult): void {
  const text = decode(file.bytes)
  if (text.trim() === '') result.skipped.push({ path: file.path, why: 'no words in it' })
  else result.notes.push({ text })
}

function readZip(file: PickedFile, result: ImportResult): void {
  let entries: Record<string, Uint8Array>
  try {
    entries = unzipSync(file.bytes)
  } catch {
    result.skipped.push({ path: file.path, why: 'not a zip that can be read' })
    return
  }
  const inside = Object.entries(entries)
    .filter(([path]) => !path.endsWith('/'))
    .map(([path, bytes]) => ({ path: `${file.path}/${path}`, bytes }))
  // This app's export: notes.json beside the files only says what they are.
  const own = inside.find((f) => f.path === `${file.path}/notes.json` && isOwnExport(f.bytes))
  for (const entry of inside) if (entry !== own) readFile(entry, result)
}

function isOwnExport(bytes: Uint8Array): boolean {
  try {
    const value = JSON.parse(decode(bytes)) as { exported?: unknown; notes?: unknown }
    return typeof value.exported === 'string' && Array.isArray(value.notes)
  } catch {
    return false
  }
}

function readJson(file: PickedFile, result: ImportResult): void {
  let value: unknown
  try {
    value = JSON.parse(decode(file.bytes))
  } catch {
    result.skipped.push({ path: file.path, why: 'not valid JSON' })
    return
  }
  if (isRecord(value) && Array.isArray(value.activeNotes))
    return readSimplenote(value.activeNotes, result)
  if (isRecord(value) && Array.isArray(value.items))
    return readStandardNotes(file.path, value.items, result)
  if (isRecord(value) && typeof value.exported === 'string' && Array.isArray(value.notes)) return
  result.skipped.push({ path: file.path, why: 'not a Simplenote or Standard Notes export' })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `text` with a last line of `#tag`s for the tags it does not have written yet. */
function withTags(text: string, tags: readonly string[]): string {
  const lower = text.toLowerCase()
  const missing = [...new Set(tags.map(tagFrom).filter((t) => t !== null))].filter(
    (t) =>
      !new RegExp(
        `(^|\\s)#${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_/-])`,
        'u',
      ).test(lower),
  )
  if (missing.length === 0) return text
  return `${text.replace(/\s+$/, '')}\n\n${missing.map((t) => `#${t}`).join(' ')}\n`
}

/** A tag name from another app's tag: spaces become `-`; null when no tag can be made of it. */
function tagFrom(name: string): string | null {
  const tag = name.trim().toLowerCase().replace(/\s+/g, '-').replace(/^#/, '')
  return isTagName(tag) ? tag : null
}

function readSimplenote(notes: unknown[], result: ImportResult): void {
  for (const note of notes) {
    if (!isRecord(note) || typeof note.content !== 'string' || note.content.trim() === '') continue
    const tags = Array.isArray(note.tags)
      ? note.tags.filter((t): t is string => typeof t === 'string')
      : []
    result.notes.push({ text: withTags(note.content, tags) })
  }
}

function readStandardNotes(path: string, items: unknown[], result: ImportResult): void {
  const records = items.filter(isRecord)
  if (records.some((item) => typeof item.content === 'string')) {
    result.skipped.push({ path, why: 'an encrypted Standard Notes backup: export a decrypted one' })
    return
  }
  const tagsOf = new Map<string, string[]>()
  for (const item of records) {
    if (
      item.content_type !== 'Tag' ||
      !isRecord(item.content) ||
      typeof item.content.title !== 'string'
    )
      continue
    for (const ref of Array.isArray(item.content.references) ? item.content.references : []) {
      if (isRecord(ref) && typeof ref.uuid === 'string')
        tagsOf.set(ref.uuid, [...(tagsOf.get(ref.uuid) ?? []), item.content.title])
    }
  }
  for (const item of records) {
    if (item.content_type !== 'Note' || item.deleted === true || !isRecord(item.content)) continue
    if (
      isRecord(item.content.appData) &&
      isRecord(item.content.appData['org.standardnotes.sn']) &&
      item.content.appData['org.standardnotes.sn'].trashed === true
    )
      continue
    if (item.content.trashed === true) continue
    const title = typeof item.content.title === 'string' ? item.content.title.trim() : ''
    const body = typeof item.content.text === 'string' ? item.content.text : ''
    const text = title === '' ? body : body.trim() === '' ? `${title}\n` : `${title}\n${body}`
    if (text.trim() === '') continue
    result.notes.push({ text: withTags(text, tagsOf.get(String(item.uuid)) ?? []) })
  }
}
