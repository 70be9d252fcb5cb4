/**
 * Attaching files (docs/tickets-api.md, 4.13): who may upload to a project, and the project's
 * room. Called by the API's upload route (src/tickets/api/files.ts), which streams the bytes in
 * between: the checks that need no byte come first, the room is counted again once the file is
 * whole (an equal content the project holds already takes no room).
 */
import { createHash } from 'node:crypto'
import { collectAfterTransfer } from '../../base/collect.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import { SNIFF_BYTES } from '../rules/files.ts'
import type { Actor } from '../rules/actor.ts'
import { projectFilesFull } from '../rules/messages.ts'
import { refuseRole } from '../rules/roles.ts'
import { listedFile } from '../representations/files.ts'
import { CHUNK_BYTES, type FileTable, type NewFile, type StoredFile } from '../store/files.ts'
import type { Tables, TicketTx } from '../store/ticket-store.ts'
import { USE } from './tickets.ts'

/** Bytes in the MB of the settings. */
export const MB = 1024 * 1024

/** The limit on a project's files: `PROJECT_FILES_MAX_MB`. */
export interface ProjectRoom {
  maxMb: number
}

/** Refuses a caller who may not attach files in the project: any member may (role `use`). */
export async function refuseUploader(
  tables: Pick<Tables, 'projects'>,
  projectId: string,
  userId: string,
): Promise<Refusal | null> {
  return refuseRole(await tables.projects.roleOf(projectId, userId), USE, 'project')
}

/** The refusal of a file that would take the project's files (`use` bytes now) past its room. */
export function roomRefusal(use: number, room: ProjectRoom): Refusal {
  return refuse(413, projectFilesFull((use / MB).toFixed(1), room.maxMb), 'body')
}

/** Refuses, before reading, a declared length that cannot fit the project's room. */
export function refuseDeclared(use: number, declared: number, room: ProjectRoom): Refusal | null {
  return use + declared > room.maxMb * MB ? roomRefusal(use, room) : null
}

/**
 * Ends an upload whose chunks are written: the content is named (or an equal one the project
 * holds is used instead) and the file made, unless a new content would pass the project's room.
 * The project hears of it: the live event `fileAttached` with the file as its list shows it,
 * which webhooks send as `file.attached`.
 */
export async function finishUpload(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  file: Omit<NewFile, 'projectMax'>,
  room: ProjectRoom,
): Promise<{ ok: true; file: StoredFile } | Refusal> {
  const done = await tx.files.finish(actor, { ...file, projectMax: room.maxMb * MB })
  if (!done.ok) return roomRefusal(done.use, room)
  await tx.emit(file.projectId, 'fileAttached', [listedFile(publicUrl, done.file)])
  return { ok: true, file: done.file }
}

/** What {@link writeContent} saw of a content: its digest, size and first bytes. */
export interface WrittenContent {
  sha256: Uint8Array
  size: number
  /** The first {@link SNIFF_BYTES} bytes (fewer for a shorter content), for `imageKind`. */
  head: Uint8Array
}

/**
 * Writes a stream of pieces (an upload's body, an imported file) as the chunks of the arriving
 * content `contentId`, taking its SHA-256 on the way. Pieces are cut into chunks of
 * {@link CHUNK_BYTES} and written in order, one write in flight while the next chunk arrives: the
 * reading and the database's writing overlap, and at most two chunks are held. When the stream
 * or a write fails, it waits for the write in flight before it throws, so the caller may discard
 * the content at once.
 */
export async function writeContent(
  files: Pick<FileTable, 'addChunk'>,
  contentId: number,
  pieces: AsyncIterable<Uint8Array>,
): Promise<WrittenContent> {
  const digest = createHash('sha256')
  let head = new Uint8Array(0)
  let size = 0
  let held: Uint8Array[] = []
  let bytes = 0
  let seq = 0
  let inFlight: Promise<void> = Promise.resolve()
  const send = async (data: Uint8Array) => {
    await inFlight
    const n = seq++
    inFlight = files.addChunk(contentId, n, data).then(() => collectAfterTransfer(data.length))
    // Seen by the next `await inFlight`; not left unhandled meanwhile.
    inFlight.catch(() => {})
  }
  try {
    for await (const piece of pieces) {
      if (head.length < SNIFF_BYTES)
        head = Buffer.concat([head, piece.subarray(0, SNIFF_BYTES - head.length)])
      digest.update(piece)
      size += piece.length
      held.push(piece)
      bytes += piece.length
      if (bytes < CHUNK_BYTES) continue
      const joined = Buffer.concat(held, bytes)
      let at = 0
      for (; joined.length - at >= CHUNK_BYTES; at += CHUNK_BYTES)
        await send(joined.subarray(at, at + CHUNK_BYTES))
      held = at < joined.length ? [joined.subarray(at)] : []
      bytes = joined.length - at
    }
    if (bytes > 0) await send(Buffer.concat(held, bytes))
    await inFlight
  } catch (err) {
    await inFlight.catch(() => {})
    throw err
  }
  return { sha256: digest.digest(), size, head }
}
