/**
 * Files (docs/tickets-api.md, "Files"): `POST /api/projects/<slug>/files?name=<name>` takes the
 * raw content as the body, `GET /api/projects/<slug>/files` lists a project's files, and
 * `/files/<id>/<name>` serves one.
 *
 * An upload streams: each chunk of 1 MiB is written as it arrives (`writeContent`, src/tickets/domain/files.ts), so a 25 MB
 * file never sits in memory, and the SHA-256 is taken on the way. The order of checks is the
 * interface's: credential (401), the name and the declared length (400, 413), the project (404),
 * the caller's role in it (403), then the project's room, before and while the body is read.
 *
 * Serving is the part that keeps a file safe to open on the service's own origin: only PNG,
 * JPEG, GIF and WebP, recognised by their first bytes when uploaded, are served inline with
 * their type; everything else is `application/octet-stream` and an attachment, and every answer
 * carries `nosniff` and a sandboxing Content-Security-Policy.
 */
import { collectAfterTransfer } from '../../base/collect.ts'
import { matches, notModified } from '../../http/conditional.ts'
import type { Handler } from '../../http/handler.ts'
import { json, NOSNIFF, type Headers } from '../../http/response.ts'
import type { Context } from '../context.ts'
import {
  cleanFileName,
  FILE_ID,
  formatSize,
  IMAGE_TYPES,
  imageKind,
  mediaType,
} from '../rules/files.ts'
import {
  FILE_EMPTY,
  fieldRequired,
  fileTooLarge,
  NO_SUCH_FILE,
  NO_SUCH_PROJECT,
} from '../rules/messages.ts'
import { answerRefusal, Refusal, refuse } from '../../http/refusal.ts'
import { finishUpload, MB, refuseDeclared, refuseUploader, writeContent } from '../domain/files.ts'
import { fileAnswer, listedFile } from '../representations/files.ts'

/** The headers every answer of `/files/...` carries: no sniffing, and no script, style or plugin even if opened as a page. */
export const FILE_HEADERS: Readonly<Headers> = Object.freeze({
  'x-content-type-options': NOSNIFF,
  'content-security-policy': "sandbox; default-src 'none'",
})

export interface FileHandlers {
  upload: Handler
  list: Handler
  serve: Handler
}

/** A `Content-Disposition` with the name both as ASCII and as UTF-8 (RFC 6266 section 4.3). */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

export function createFileHandlers(
  ctx: Context,
  limits: { uploadMaxMb: number; projectFilesMaxMb: number },
): FileHandlers {
  const { store, credentials, publicUrl, clock } = ctx
  const uploadMax = limits.uploadMaxMb * MB
  const room = { maxMb: limits.projectFilesMaxMb }
  const tooLarge = () =>
    answerRefusal(refuse(413, fileTooLarge(limits.uploadMaxMb), 'body'), { connection: 'close' })

  const upload: Handler = async (req) => {
    const who = await credentials.resolve(req, 'user-or-key')
    if (!who.ok) return answerRefusal(who)
    const rawName = req.query.get('name')
    if (rawName === null || rawName.trim() === '')
      return answerRefusal(refuse(400, fieldRequired('name'), 'name'))
    const declared = Number(req.headers['content-length'])
    if (declared > uploadMax) return tooLarge()
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    const acting = await credentials.actingUser(who.caller, project.id)
    if (!acting.ok) return answerRefusal(acting)
    const refused = await refuseUploader(store, project.id, acting.user.id)
    if (refused) return answerRefusal(refused)
    // Counted again when the file is whole, after an equal content already held was found
    // (that takes no room); here only a declared length that cannot fit is refused unread.
    const full = refuseDeclared(await store.files.use(project.id), declared || 0, room)
    if (full) return answerRefusal(full, { connection: 'close' })

    const contentId = await store.files.begin(project.id, clock())
    let kept = false
    try {
      const { sha256, size, head } = await writeContent(
        store.files,
        contentId,
        req.bodyStream(uploadMax),
      )
      if (size === 0) return answerRefusal(refuse(400, FILE_EMPTY, 'body'))

      const image = imageKind(head)
      const actor = { user: acting.user, app: acting.app, now: clock() }
      const done = await store.transact((tx) =>
        finishUpload(
          tx,
          publicUrl,
          actor,
          {
            projectId: project.id,
            contentId,
            sha256,
            size,
            name: cleanFileName(rawName),
            type: image !== null ? IMAGE_TYPES[image] : mediaType(req.headers['content-type']),
            image,
          },
          room,
        ),
      )
      if (!done.ok) return answerRefusal(done, { connection: 'close' })
      kept = true
      return json(201, { file: fileAnswer(publicUrl, done.file) })
    } catch (err) {
      // The body went past UPLOAD_MAX_MB (src/http/request.ts, bodyStream): said in this route's words.
      if (err instanceof Refusal && err.code === 'body_too_large') return tooLarge()
      throw err
    } finally {
      // writeContent waited for its writes, also when it failed.
      if (!kept) await store.files.discard(contentId)
    }
  }

  const list: Handler = async (req) => {
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    const files = await store.files.list(project.id)
    return json(200, { files: files.map((f) => listedFile(publicUrl, f)) })
  }

  const serve: Handler = async (req) => {
    const id = req.params.id!
    const file = FILE_ID.test(id) ? await store.files.served(id) : null
    if (!file) return answerRefusal(refuse(404, NO_SUCH_FILE), FILE_HEADERS)
    const headers: Headers = Object.assign({}, FILE_HEADERS, {
      'content-type': file.image !== null ? IMAGE_TYPES[file.image] : 'application/octet-stream',
      'content-length': String(file.size),
      'content-disposition': disposition(file.image !== null ? 'inline' : 'attachment', file.name),
      etag: `"${file.sha256}"`,
      // The content at an id never changes; a day's cache, then a 304 by the tag.
      'cache-control': 'public, max-age=86400',
    })
    if (matches(req.headers['if-none-match'], headers.etag as string)) return notModified(headers)
    const chunks = store.files.chunks(file.contentId)
    async function* body(): AsyncGenerator<Uint8Array> {
      let sent = 0
      for await (const chunk of chunks) {
        sent += chunk.length
        yield chunk
        collectAfterTransfer(chunk.length)
      }
      // Swept while being sent: the connection is cut rather than a short file looking whole.
      if (sent !== file!.size)
        throw new Error(
          `file ${id} ended after ${sent} of ${file!.size} bytes (${formatSize(file!.size)})`,
        )
    }
    return { status: 200, headers, body: body() }
  }

  return { upload, list, serve }
}
