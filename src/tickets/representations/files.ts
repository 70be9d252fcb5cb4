/**
 * A file as the API, the live events and the webhooks show it: the store's file with its
 * address under the service's public URL and the Markdown that links it.
 */
import { fileMarkdown, filePath } from '../rules/files.ts'
import type { StoredFile } from '../store/files.ts'

/** A file as the API answers it. */
export interface FileAnswer {
  id: string
  name: string
  type: string
  size: number
  /** The file's address on the service. */
  url: string
  /** The Markdown that links it, with the address from the service's root (see {@link fileMarkdown}). */
  markdown: string
}

/** A file of a list: the answer, and who uploaded it when. */
export interface ListedFile extends FileAnswer {
  by: string
  user: string | null
  app: string | null
  created: number
}

export function fileAnswer(publicUrl: string, f: StoredFile): FileAnswer {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    size: f.size,
    url: publicUrl + filePath(f.id, f.name),
    markdown: fileMarkdown(f),
  }
}

export function listedFile(publicUrl: string, f: StoredFile): ListedFile {
  return { ...fileAnswer(publicUrl, f), by: f.by, user: f.user, app: f.app, created: f.created }
}
