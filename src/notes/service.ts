/** The notes sync service (docs/notes-api.md) and its web app. */
import { pageHeadersOn } from '../http/page-headers.ts'
import type { Service, ServiceDeps } from '../service.ts'
import { createApiHandlers } from './api.ts'
import { createLoginHandlers } from './login.ts'
import { notesRoutes } from './routes.ts'
import { createNoteStore } from './store.ts'
import { createWebHandlers } from './web.ts'

/** Builds the notes service; its web app's files are bundled now, in the background. */
export function createNotesService(deps: ServiceDeps): Service {
  const { sql, clock, idp, sessions, publicUrl } = deps
  const store = createNoteStore({ sql, clock })
  const login = createLoginHandlers({ idp, sessions, publicUrl })
  const api = createApiHandlers({ store, sessions, publicUrl })
  const web = createWebHandlers({ sessions, publicUrl })
  return {
    // Every answer carries the strict Content-Security-Policy and its companions.
    routes: pageHeadersOn(notesRoutes(login, api, web)),
    // The service takes no `Authorization` header: only a signed-in session's cookie is known.
    async verifyCredential(req) {
      const authorization = req.headers.authorization
      if (authorization !== undefined && authorization !== '') return null
      const userId = (await sessions.load(req))?.userId ?? null
      return userId === null ? null : `user:${userId}`
    },
  }
}
