/**
 * "Export all notes": a zip (through `fflate`) of one text file per note, named after the
 * note's first line (made safe for every file system, and unique), and `notes.json` with each
 * note's id, file name and time. Built from this browser's copy, so it works offline.
 *
 * @module
 */
import { strToU8, zipSync } from 'fflate'

export interface ExportedNote {
  id: string
  text: string
  edited: number
}

/** The longest name before `.txt`, in characters. */
const NAME_MAX = 60
// Reserved on Windows, whatever the extension.
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i

/** A safe file name (without `.txt`) from a note's first line. */
export function safeName(text: string): string {
  const first = text.split('\n', 1)[0] ?? ''
  let name = first
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, ' ')
    .replace(/^[#>*\-\s.]+/, '')
    .replace(/\s+/g, ' ')
    .trim()
  name = Array.from(name)
    .slice(0, NAME_MAX)
    .join('')
    .replace(/[\s.]+$/, '')
  if (name === '' || RESERVED.test(name)) name = name === '' ? 'Untitled' : `${name} note`
  return name
}

/** The file name of each note, in the order given: safe and unique (case-insensitively). */
export function fileNames(notes: readonly ExportedNote[]): string[] {
  const used = new Set<string>()
  return notes.map((note) => {
    const stem = safeName(note.text)
    let name = `${stem}.txt`
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${stem} (${n}).txt`
    used.add(name.toLowerCase())
    return name
  })
}

/** The zip's bytes: `notes/<name>.txt` for each note and `notes.json`. */
export function exportZip(notes: readonly ExportedNote[], now: number): Uint8Array {
  const names = fileNames(notes)
  const files: Record<string, Uint8Array> = {}
  notes.forEach((note, i) => (files[`notes/${names[i]}`] = strToU8(note.text)))
  const index = notes.map((note, i) => ({
    id: note.id,
    file: `notes/${names[i]}`,
    edited: new Date(note.edited).toISOString(),
    editedMs: note.edited,
  }))
  files['notes.json'] = strToU8(
    JSON.stringify({ exported: new Date(now).toISOString(), notes: index }, null, 2),
  )
  return zipSync(files, { level: 6, mtime: new Date(now) })
}
