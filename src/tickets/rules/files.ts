/**
 * The rules of attached files (docs/tickets-app.md, "Attaching files"): what a file's name may
 * be, which contents are images, the Markdown a file is linked with, how its address and size
 * read, and which files a text names. Pure functions; the browser reads {@link formatSize} and
 * {@link filePath} too.
 *
 * @module
 */

/** A file's id: 128 random bits in base64url, 22 characters. */
export const FILE_ID = /^[A-Za-z0-9_-]{22}$/

/** The image types served inline, by the name the store keeps. */
export const IMAGE_TYPES = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
} as const
export type ImageKind = keyof typeof IMAGE_TYPES

/** How many first bytes {@link imageKind} needs. */
export const SNIFF_BYTES = 12

/**
 * The image kind the first bytes of a content show, or null: PNG's signature (RFC 2083 3.1),
 * JPEG's SOI marker and the start of a segment, `GIF87a`/`GIF89a`, and WebP's RIFF header. The
 * name and the uploader's type are never asked: a PNG named `x.html` is a PNG, and an SVG is
 * not an image here (it can carry script).
 */
export function imageKind(head: Uint8Array): ImageKind | null {
  const at = (i: number, ...bytes: number[]) => bytes.every((b, j) => head[i + j] === b)
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png'
  if (at(0, 0xff, 0xd8, 0xff)) return 'jpeg'
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61)
    return 'gif'
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'webp'
  return null
}

/** The longest file name kept, in characters. */
export const NAME_MAX = 200

/** What a name that cleans to nothing becomes. */
export const UNNAMED = 'file'

/**
 * A name as uploaded, cleaned to a safe file name: the last part of a path (either slash), without
 * control and direction-changing characters, characters Windows refuses turned into `_`, no
 * leading or trailing spaces and dots, at most {@link NAME_MAX} characters with the extension
 * kept; {@link UNNAMED} when nothing is left.
 */
export function cleanFileName(raw: string): string {
  let name = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1)
  // C0 and C1 controls, DEL, and the bidirectional controls that can make `gpj.exe` read as `exe.jpg`.
  name = name.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
    '',
  )
  name = name.replace(/[:*?"<>|]/g, '_')
  name = name.replace(/^[\s.]+|[\s.]+$/g, '')
  const chars = [...name]
  if (chars.length > NAME_MAX) {
    const dot = name.lastIndexOf('.')
    const ext = dot > 0 ? [...name.slice(dot)] : []
    name =
      ext.length > 0 && ext.length <= 20
        ? chars.slice(0, NAME_MAX - ext.length).join('') + ext.join('')
        : chars.slice(0, NAME_MAX).join('')
  }
  return name === '' ? UNNAMED : name
}

/** What the uploader said the type is, when it reads as a media type; else `application/octet-stream`. */
export function mediaType(header: string | undefined): string {
  const type = header?.split(';')[0]?.trim().toLowerCase() ?? ''
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(type)
    ? type
    : 'application/octet-stream'
}

/** A file's address on the service, from its public root: `/files/<id>/<name>`. */
export function filePath(id: string, name: string): string {
  // encodeURIComponent leaves ( ) ! ' * as they are; parentheses would end a Markdown link.
  return `/files/${id}/${encodeURIComponent(name).replace(/[()!'*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`
}

/** A size as people read it: `512 B`, `3.4 kB`, `1.2 MB` (1 kB is 1,024 bytes, 1 MB 1,048,576). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} kB`
  if (bytes < 1024 * 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MB`
  return `${trim(bytes / (1024 * 1024 * 1024))} GB`
}

function trim(n: number): string {
  return n >= 100 ? String(Math.round(n)) : n.toFixed(1).replace(/\.0$/, '')
}

/** The Markdown that links a file: `![name](path)` for an image, `[name (1.2 MB)](path)` otherwise. */
export function fileMarkdown(file: {
  id: string
  name: string
  size: number
  image: ImageKind | null
}): string {
  const label = file.name.replace(/[\\[\]]/g, (c) => `\\${c}`)
  const path = filePath(file.id, file.name)
  return file.image !== null
    ? `![${label}](${path})`
    : `[${label} (${formatSize(file.size)})](${path})`
}

const FILE_REFERENCE = /\/files\/([A-Za-z0-9_-]{22})(?=[/?#)\s"'>]|$)/g

/** The ids of the files a text links to (by address, relative or absolute), each once. */
export function fileIdsIn(text: string): string[] {
  const ids = new Set<string>()
  for (const match of text.matchAll(FILE_REFERENCE)) ids.add(match[1]!)
  return [...ids]
}
