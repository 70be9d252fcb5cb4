/**
 * The files aggregate (sql/0028_files.sql, sql/0036_ticket_files.sql): contents stored once per project in chunks, the
 * uploads that name them, and the sweep of the ones no ticket kept.
 *
 * An upload is written in three steps, so that no transaction stays open while bytes arrive
 * (the embedded database runs one transaction at a time): {@link FileTable.begin} makes an
 * arriving content, {@link FileTable.addChunk} writes each chunk in a statement of its own,
 * and {@link FileTable.finish}, in one transaction, either names the content by its SHA-256 or,
 * when the project holds that content already, drops it for the one held.
 */
import type { Query } from '../../db/client.ts'
import { randomToken } from '../../base/random.ts'
import type { Actor } from '../rules/actor.ts'
import type { ImageKind } from '../rules/files.ts'

/** A stored file as the store shows it (the API adds its address and Markdown). */
export interface StoredFile {
  id: string
  projectId: string
  name: string
  /** The type it is served as: the image's type, else the uploader's (shown only; files that are not images are served as `application/octet-stream`). */
  type: string
  image: ImageKind | null
  size: number
  /** Who uploaded it: the person (their id and name at the time) and the connected app, if one. */
  user: string | null
  by: string
  app: string | null
  created: number
}

/** A file with what serving it needs. */
export interface ServedFile extends StoredFile {
  contentId: number
  /** The content's SHA-256, base64url: its `ETag`. */
  sha256: string
}

interface FileRow {
  id: string
  project_id: string
  name: string
  type: string
  image: ImageKind | null
  size: number
  user_id: string | null
  by: string
  app: string | null
  created: number
}

function fileOf(r: FileRow): StoredFile {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    type: r.type,
    image: r.image,
    size: r.size,
    user: r.user_id,
    by: r.by,
    app: r.app,
    created: r.created,
  }
}

/** The bytes of one chunk of a content: 1 MiB. */
export const CHUNK_BYTES = 1024 * 1024

/** How long a content may take to arrive before the sweep takes it for abandoned. */
export const ARRIVING_MAX_MS = 60 * 60 * 1000

/** How long after its upload a file no ticket's text names is removed. */
export const UNREFERENCED_MS = 24 * 60 * 60 * 1000

/** Who uploads a file: an {@link Actor}, or an imported ticket's author who never signed in here (no id). */
export type Uploader = Omit<Actor, 'user'> & { user: { id: string | null; name: string } }

export interface NewFile {
  projectId: string
  /** The arriving content {@link FileTable.begin} made, its chunks written. */
  contentId: number
  sha256: Uint8Array
  size: number
  name: string
  type: string
  image: ImageKind | null
  /** The project's limit on the bytes of its contents. */
  projectMax: number
}

/** What {@link FileTable.finish} answers: the file, or the project's use when the file would pass its limit. */
export type Finished =
  { ok: true; file: StoredFile; deduplicated: boolean } | { ok: false; use: number }

/** The files of `q`. */
export function fileTable(q: Query) {
  return {
    /** Starts an upload: an arriving content in the project; answers its id. */
    async begin(projectId: string, now: number): Promise<number> {
      const [row] = await q<
        { id: number }[]
      >`insert into file_contents (project_id, created) values (${projectId}, ${now}) returning id`
      return row!.id
    },

    /** Writes chunk `seq` of an arriving content. */
    async addChunk(contentId: number, seq: number, data: Uint8Array): Promise<void> {
      // As base64 text, which the server decodes: the client would send bytea as hex, half as long again.
      await q`insert into file_chunks (content_id, seq, data) values (${contentId}, ${seq}, decode(${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')}, 'base64'))`
    },

    /** Drops an arriving content and its chunks (an upload refused or broken off). */
    async discard(contentId: number): Promise<void> {
      await q`delete from file_contents where id = ${contentId} and sha256 is null`
    },

    /**
     * Ends an upload, in a transaction: the project's uploads are counted one after another
     * (an advisory lock per project), an equal content already held is used instead of the
     * arriving one, and a new content is refused when the project's contents would pass
     * `projectMax` bytes.
     */
    async finish(actor: Uploader, f: NewFile): Promise<Finished> {
      await q`select pg_advisory_xact_lock(hashtextextended(${`files:${f.projectId}`}, 0))`
      // `for share`: a sweep deleting that content waits for this, or this finds none.
      const [held] = await q<{ id: number }[]>`
        select id from file_contents where project_id = ${f.projectId} and sha256 = ${f.sha256} for share`
      let contentId = f.contentId
      if (held) {
        await q`delete from file_contents where id = ${f.contentId} and sha256 is null`
        contentId = held.id
      } else {
        const use = await projectUse(q, f.projectId)
        if (use + f.size > f.projectMax) return { ok: false, use }
        await q`update file_contents set sha256 = ${f.sha256}, size = ${f.size} where id = ${f.contentId}`
      }
      const [row] = await q<FileRow[]>`
        insert into files (id, project_id, content_id, name, type, image, size, user_id, by, app, created)
        values (${randomToken(16)}, ${f.projectId}, ${contentId}, ${f.name}, ${f.type}, ${f.image}, ${f.size},
                ${actor.user.id}, ${actor.user.name}, ${actor.app}, ${actor.now})
        returning id, project_id, name, type, image, size, user_id, by, app, created`
      return { ok: true, file: fileOf(row!), deduplicated: held !== undefined }
    },

    /** The bytes a project's contents take (each content once). */
    use: (projectId: string) => projectUse(q, projectId),

    /** A file with its content's id and digest, or null. */
    async served(id: string): Promise<ServedFile | null> {
      const [row] = await q<(FileRow & { content_id: number; sha256: Uint8Array })[]>`
        select f.id, f.project_id, f.name, f.type, f.image, f.size, f.user_id, f.by, f.app, f.created, f.content_id, c.sha256
        from files f join file_contents c on c.id = f.content_id where f.id = ${id}`
      if (!row) return null
      return {
        ...fileOf(row),
        contentId: row.content_id,
        sha256: Buffer.from(row.sha256).toString('base64url'),
      }
    },

    /**
     * A content's bytes, chunk after chunk, the next read while the last is being sent: a
     * download holds two chunks at most. Ends early when a chunk is missing (the content was
     * swept meanwhile); the caller, who sent the length, then cuts the connection.
     */
    async *chunks(contentId: number): AsyncGenerator<Uint8Array> {
      const read = async (seq: number) => {
        // As base64 text, which the client reads quicker than bytea's hex, and half as long.
        const [row] = await q<
          { data: string }[]
        >`select encode(data, 'base64') as data from file_chunks where content_id = ${contentId} and seq = ${seq}`
        return row ? Buffer.from(row.data, 'base64') : null
      }
      let next = read(0)
      try {
        for (let seq = 1; ; seq++) {
          const data = await next
          if (data === null) return
          next = read(seq)
          yield data
        }
      } finally {
        // A download broken off leaves a read under way: its outcome is nobody's.
        next.catch(() => {})
      }
    },

    /** A project's files, newest first. */
    async list(projectId: string): Promise<StoredFile[]> {
      const rows = await q<FileRow[]>`
        select id, project_id, name, type, image, size, user_id, by, app, created
        from files where project_id = ${projectId} order by created desc, id`
      return rows.map(fileOf)
    },

    /** The files of a project among `ids`, oldest first. */
    async inProject(projectId: string, ids: readonly string[]): Promise<StoredFile[]> {
      if (ids.length === 0) return []
      const rows = await q<FileRow[]>`
        select id, project_id, name, type, image, size, user_id, by, app, created
        from files where project_id = ${projectId} and id = any(${ids as string[]}) order by created, id`
      return rows.map(fileOf)
    },

    /**
     * The sweep at `now`: a file uploaded more than {@link UNREFERENCED_MS} ago is kept for good
     * when a ticket of its project names it (subject, summary, or any event of its history, so
     * an edit that removes the link does not remove the file), else removed; then contents no
     * file names, and contents that stopped arriving {@link ARRIVING_MAX_MS} ago, are deleted.
     * Answers how many files and contents went.
     */
    async sweep(now: number): Promise<{ files: number; contents: number }> {
      const due = now - UNREFERENCED_MS
      // A ticket links it (sql/0036_ticket_files.sql keeps which, from the texts and the history).
      await q`
        update files f set kept = true
        where not f.kept and f.created <= ${due}
          and exists (select 1 from ticket_files tf where tf.file_id = f.id)`
      const files = await q`delete from files where not kept and created <= ${due}`
      // `skip locked`: a content an upload is finishing onto (`for share` in finish) stays.
      const contents = await q`
        delete from file_contents where id in (
          select c.id from file_contents c
          where (c.sha256 is not null and not exists (select 1 from files f where f.content_id = c.id))
             or (c.sha256 is null and c.created <= ${now - ARRIVING_MAX_MS})
          for update skip locked)`
      return { files: files.count, contents: contents.count }
    },
  }
}

export type FileTable = ReturnType<typeof fileTable>

async function projectUse(q: Query, projectId: string): Promise<number> {
  const [row] = await q<{ use: number }[]>`
    select coalesce(sum(size), 0)::bigint as use from file_contents where project_id = ${projectId} and sha256 is not null`
  return row!.use
}
