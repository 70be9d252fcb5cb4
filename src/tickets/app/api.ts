/**
 * How the pages write: through the ticket service's own JSON API, with the page's session
 * cookie and its tag in `x-tag` (docs/tickets-api.md, "Conventions"), exactly as any other
 * client must. An answer is a value, never an exception: a refusal carries the API's message
 * and the field it names, and a network failure or a server that does not answer in time says
 * so in words a person can act on.
 */
import { canBeAtMost, fillIn } from '../rules/messages.ts'

export type ApiAnswer =
  | { ok: true; status: number; body: Record<string, unknown> }
  | { ok: false; status: number; error: string; field: string | null }

export interface ApiClient {
  /** POSTs `body` as JSON to `path`, with `headers` besides the client's own (`If-Match`). */
  post(path: string, body: Record<string, string | string[]>, headers?: Record<string, string>): Promise<ApiAnswer>
}

export interface ApiDeps {
  fetch: typeof fetch
  /** The session's tag, from the page (`<meta name="x-tag">`). */
  tag: string
  /** How long a write may take before the person is told, in milliseconds. */
  timeoutMs?: number
}

export const NETWORK_FAILED = 'Could not reach the server, so nothing was saved. What you typed is still here: try again.'
export const TIMED_OUT = 'The server did not answer in time, so the change may not be saved. What you typed is still here: try again.'
export const SIGNED_OUT = 'You are signed out. Sign in again in another tab, then try again here.'

/**
 * An API message as a sentence: `this needs role admin` → `This needs role admin.` Only a first
 * word of plain lower-case letters is capitalised, so a message that starts with a ticket's
 * reference or a slug (`web#1 has no parent`) keeps it as written.
 */
export function sentence(text: string): string {
  const trimmed = text.trim()
  if (trimmed === '') return trimmed
  const first = /^[a-z]+(\s|$)/.test(trimmed) ? trimmed[0]!.toUpperCase() + trimmed.slice(1) : trimmed
  return /[.!?]$/.test(first) ? first : `${first}.`
}

/** What the pages call the API's body fields in a sentence. */
const FIELD_WORDS: Record<string, string> = {
  text: 'the comment', subject: 'the subject', summary: 'the summary', source: 'the source', title: 'the title', slug: 'the slug',
  description: 'the description', user: 'the person', role: 'the role', label: 'the label', parent: 'the parent', add: 'the ticket',
  remove: 'the ticket', assignee: 'the assignee', email: 'the mail address', state: 'the state',
}

/**
 * An API refusal in a person's words: the body rules that name a field (`'text' is required`,
 * `'summary' is at most 100000 characters`) are said of the thing the field holds; the rest
 * read as sentences already.
 */
export function readable(error: string): string {
  const required = /^'(\w+)' is required$/.exec(error)
  if (required && FIELD_WORDS[required[1]!]) return fillIn(FIELD_WORDS[required[1]!]!)
  const long = /^'(\w+)' is at most (\d+) characters$/.exec(error)
  if (long && FIELD_WORDS[long[1]!]) return canBeAtMost(FIELD_WORDS[long[1]!]!, Number(long[2]))
  return sentence(error)
}

export function createApiClient(deps: ApiDeps): ApiClient {
  const timeoutMs = deps.timeoutMs ?? 15_000
  return {
    async post(path, body, headers = {}) {
      const abort = new AbortController()
      const timer = setTimeout(() => abort.abort(), timeoutMs)
      let res: Response
      try {
        res = await deps.fetch(path, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'x-tag': deps.tag },
          body: JSON.stringify(body),
          credentials: 'same-origin',
          signal: abort.signal,
        })
      } catch {
        return { ok: false, status: 0, error: abort.signal.aborted ? TIMED_OUT : NETWORK_FAILED, field: null }
      } finally {
        clearTimeout(timer)
      }
      let answer: unknown = null
      try {
        answer = await res.json()
      } catch {
        // An answer that is not JSON (a proxy's error page, say) is described by its status.
      }
      const record = answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>) : {}
      if (res.ok) return { ok: true, status: res.status, body: record }
      if (res.status === 401) return { ok: false, status: 401, error: SIGNED_OUT, field: null }
      const error = typeof record.error === 'string' ? readable(record.error) : `The server answered ${res.status}. Nothing was saved; try again.`
      return { ok: false, status: res.status, error, field: typeof record.field === 'string' ? record.field : null }
    },
  }
}
