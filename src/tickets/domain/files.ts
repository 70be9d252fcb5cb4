/**
 * Attaching files (docs/tickets-api.md, 4.13): who may upload to a project, and the project's
 * room. Called by the API's upload route (src/tickets/api/files.ts), which streams the bytes in
 * between: the checks that need no byte come first, the room is counted again once the file is
 * whole (an equal content the project holds already takes no room).
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { projectFilesFull } from '../rules/messages.ts'
import { refuseRole } from '../rules/roles.ts'
import { listedFile } from '../representations/files.ts'
import type { NewFile, StoredFile } from '../store/files.ts'
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
