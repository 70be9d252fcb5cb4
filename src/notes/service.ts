/** The notes sync service (notes-interface.md, decisions.md section 5). */
import type { Service, ServiceDeps } from '../service.ts'
import { createApiHandlers } from './api.ts'
import { createLoginHandlers } from './login.ts'
import { notesRoutes } from './routes.ts'
import { createNoteStore } from './store.ts'

/** Builds the notes service. */
export function createNotesService(deps: ServiceDeps): Service {
  const { sql, clock, idp, sessions, publicUrl } = deps
  const store = createNoteStore({ sql, clock })
  const login = createLoginHandlers({ idp, sessions, publicUrl })
  const api = createApiHandlers({ store, sessions, publicUrl })
  return { routes: notesRoutes(login, api) }
}
