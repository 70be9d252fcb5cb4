/**
 * The notes service's route table, in the order of notes-interface.md: section 4.1 to 4.4, then
 * the login button's target of section 5, then the start page.
 */
import type { HttpRoute } from '../http.ts'
import type { ApiHandlers } from './api.ts'
import type { LoginHandlers } from './login.ts'

export function notesRoutes(login: LoginHandlers, api: ApiHandlers): HttpRoute[] {
  return [
    // 4.1: '*' because the callback answers other methods with its own failure (rule 1).
    { method: '*', path: '/login/callback', handler: login.callback },
    // 4.2
    { method: 'GET', path: '/login/failed', handler: login.failed },
    // 4.3: no method check.
    { method: '*', path: '/api/me', handler: api.me },
    // 4.4: '*' because the 401 of rule 1 comes before the 405 of rule 3.
    { method: '*', path: '/api/notes', handler: api.notes },
    // Section 5: the login button's target.
    { method: 'GET', path: '/login', handler: login.login },
    { method: 'GET', path: '/', handler: login.home },
  ]
}
