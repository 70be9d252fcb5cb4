/**
 * The notes service's route table: the login return and failure page, `/api/me` and
 * `/api/notes` (docs/notes-api.md, "Signing in" and "Checks of /api/notes, in order"), then the
 * login button's target, then the web app (docs/notes-app.md).
 */
import type { HttpRoute } from '../http/handler.ts'
import type { ApiHandlers } from './api.ts'
import type { LoginHandlers } from './login.ts'
import type { WebHandlers } from './web.ts'

export function notesRoutes(login: LoginHandlers, api: ApiHandlers, web: WebHandlers): HttpRoute[] {
  return [
    // The login return (docs/notes-api.md, "Signing in"): '*' because it answers other methods
    // with its own failure (step 1).
    { method: '*', path: '/login/callback', handler: login.callback, rateLimit: 'signin' },
    // Where a failed login lands.
    { method: 'GET', path: '/login/failed', handler: login.failed },
    // Who is signed in: no method check.
    { method: '*', path: '/api/me', handler: api.me },
    // The notes (docs/notes-api.md, "Checks of `/api/notes`, in order"): '*' because the 401 of
    // check 1 comes before the 405 of check 4.
    { method: '*', path: '/api/notes', handler: api.notes },
    // What changed, with the texts, and the history of a note (docs/notes-api.md); '*' for the
    // same reason.
    { method: '*', path: '/api/notes/changes', handler: api.changes },
    { method: '*', path: '/api/notes/revisions', handler: api.revisions },
    // The deleted notes kept for 30 days, and emptying them (docs/notes-api.md, "Recently deleted").
    { method: '*', path: '/api/notes/trash', handler: api.trash },
    // Published notes: the owner's list and switch, and the page anyone with the address reads.
    { method: '*', path: '/api/notes/publications', handler: api.publications },
    { method: 'GET', path: '/p/:id', handler: web.published },
    // Sharing with people (docs/notes-api.md, "Sharing with people"): finding a person by name,
    // the owner's shares, the notes shared with the person, and the wait of an open note.
    { method: '*', path: '/api/notes/people', handler: api.people },
    { method: '*', path: '/api/notes/shares', handler: api.shares },
    { method: '*', path: '/api/notes/shared', handler: api.shared },
    { method: '*', path: '/api/notes/wait', handler: api.wait },
    // The pinned notes, which follow the person to every device (docs/notes-api.md, "Pins").
    { method: '*', path: '/api/notes/pins', handler: api.pins },
    // Section 5: the login button's target.
    { method: 'GET', path: '/login', handler: login.login, rateLimit: 'signin' },
    { method: 'POST', path: '/logout', handler: web.logout },
    // The web app.
    { method: 'GET', path: '/', handler: web.home },
    { method: 'GET', path: '/assets/:file', handler: web.asset },
    { method: 'GET', path: '/sw.js', handler: web.serviceWorker },
    { method: 'GET', path: '/manifest.webmanifest', handler: web.manifest },
  ]
}
