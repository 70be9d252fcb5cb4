/** The notes sync service (docs/notes-api.md) and its web app. */
import { pageHeadersOn } from '../http/page-headers.ts'
import type { Service, ServiceDeps } from '../service.ts'
import { createApiHandlers } from './api.ts'
import { createLoginHandlers } from './login.ts'
import { notesRoutes } from './routes.ts'
import { createPublications } from './publications.ts'
import { createNoteStore, TRASH_MS } from './store.ts'
import { createShares } from './shares.ts'
import { createPins } from './pins.ts'
import { createWakes } from './waits.ts'
import { createWebHandlers, type Built } from './web.ts'

/** How often deleted notes past their 30 days are removed for good. */
const PURGE_EVERY_MS = 60 * 60 * 1000

/**
 * Builds the notes service; its web app's files are bundled now, in the background. Deleted
 * notes past their 30 days lose their text and history at start and every hour after.
 */
export function createNotesService(
  deps: ServiceDeps & {
    /** Bundles the web app's files; absent, a build of its own. Tests share one build a process. */
    build?: () => Promise<Built>
  },
): Service {
  const { sql, clock, idp, sessions, publicUrl, logger } = deps
  const wakes = createWakes()
  const store = createNoteStore({ sql, clock, onSaved: wakes.wake })
  const shares = createShares({ sql, clock })
  const purge = () =>
    store.purge(null, clock() - TRASH_MS).catch((err: unknown) => {
      logger.line(
        `notes: removing deleted notes past their 30 days failed: ${err instanceof Error ? err.message : String(err)}`,
      )
    })
  void purge()
  const purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS)
  purgeTimer.unref()
  const login = createLoginHandlers({ idp, sessions, publicUrl, people: shares })
  const publications = createPublications({ sql, clock })
  const api = createApiHandlers({
    store,
    publications,
    shares,
    wakes,
    pins: createPins({ sql }),
    sessions,
    publicUrl,
  })
  const web = createWebHandlers({
    sessions,
    idp,
    publications,
    publicUrl,
    places: deps.places,
    ...(deps.build ? { build: deps.build } : {}),
  })
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
    close() {
      api.close()
      clearInterval(purgeTimer)
    },
  }
}
