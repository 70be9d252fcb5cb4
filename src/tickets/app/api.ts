/**
 * How the pages write: through the ticket service's own JSON API, with the page's session
 * cookie and its tag in `x-tag` (docs/tickets-api.md, "Conventions"), exactly as any other
 * client must. An answer is a value, never an exception: a refusal carries its code (the
 * `x-error-code` header, docs/core.md, "Refusals"), the API's message in a person's words and
 * the field it names, and a network failure or a server that does not answer in time says so
 * in words a person can act on. What the pages do with a refusal is decided by its code, never
 * by its words.
 */
import type { RefusalCode } from '../../http/refusal.ts'
import { FIELD_MAX } from '../rules/lengths.ts'
import { canBeAtMost, fillIn } from '../text/page-words.ts'

/** The header a refusal's code comes in (src/http/refusal.ts, `ERROR_CODE`). */
const ERROR_CODE = 'x-error-code'

/** What no answer has: the request did not reach the server, or it did not answer in time. */
export type NoAnswer = 'network_failed' | 'timed_out'

export type ApiAnswer =
  | { ok: true; status: number; body: Record<string, unknown> }
  | {
      ok: false
      status: number
      /** The refusal's code; `null` for an answer that carries none (a proxy's error page). */
      code: RefusalCode | NoAnswer | null
      error: string
      field: string | null
    }

export interface ApiClient {
  /** POSTs `body` as JSON to `path`, with `headers` besides the client's own (`If-Match`). */
  post(
    path: string,
    body: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<ApiAnswer>
}

export interface ApiDeps {
  fetch: typeof fetch
  /** The session's tag, from the page (`<meta name="x-tag">`). */
  tag: string
  /** How long a write may take before the person is told, in milliseconds. */
  timeoutMs?: number
}

export const NETWORK_FAILED =
  'Could not reach the server, so nothing was saved. What you typed is still here: try again.'
export const TIMED_OUT =
  'The server did not answer in time, so the change may not be saved. What you typed is still here: try again.'
export const SIGNED_OUT = 'You are signed out. Sign in again in another tab, then try again here.'

/** The codes of a write without a usable credential: the page's session has ended. */
const SIGNED_OUT_CODES: ReadonlySet<string | null> = new Set<RefusalCode>([
  'token_needed',
  'bad_token',
  'user_token_needed',
])

/**
 * An API message as a sentence: `this needs role admin` → `This needs role admin.` Only a first
 * word of plain lower-case letters is capitalised, so a message that starts with a ticket's
 * reference or a slug (`web#1 has no parent`) keeps it as written.
 */
export function sentence(text: string): string {
  const trimmed = text.trim()
  if (trimmed === '') return trimmed
  const firstWord = trimmed.split(' ', 1)[0]!
  const plain = [...firstWord].every((c) => c >= 'a' && c <= 'z')
  const first = plain ? trimmed[0]!.toUpperCase() + trimmed.slice(1) : trimmed
  return '.!?'.includes(first.at(-1)!) ? first : `${first}.`
}

/** What the pages call the API's body fields in a sentence. */
const FIELD_WORDS: Record<string, string> = {
  text: 'the comment',
  subject: 'the subject',
  summary: 'the summary',
  source: 'the source',
  title: 'the title',
  slug: 'the slug',
  description: 'the description',
  user: 'the person',
  role: 'the role',
  label: 'the label',
  parent: 'the parent',
  add: 'the ticket',
  remove: 'the ticket',
  assignee: 'the assignee',
  email: 'the mail address',
  state: 'the state',
}

/**
 * An API refusal in a person's words: a required field left out (`field_required`) or a text
 * over its limit (`too_long`) is said of the thing the field holds; the rest read as sentences
 * already.
 */
export function readable(code: string | null, error: string, field: string | null): string {
  const words = field === null ? undefined : FIELD_WORDS[field]
  if (words !== undefined && code === 'field_required') return fillIn(words)
  const max = field === null ? undefined : FIELD_MAX[field]
  if (words !== undefined && max !== undefined && code === 'too_long')
    return canBeAtMost(words, max)
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
        const timedOut = abort.signal.aborted
        return {
          ok: false,
          status: 0,
          code: timedOut ? 'timed_out' : 'network_failed',
          error: timedOut ? TIMED_OUT : NETWORK_FAILED,
          field: null,
        }
      } finally {
        clearTimeout(timer)
      }
      let answer: unknown = null
      try {
        answer = await res.json()
      } catch {
        // An answer that is not JSON (a proxy's error page, say) is described by its status.
      }
      const record =
        answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>) : {}
      if (res.ok) return { ok: true, status: res.status, body: record }
      const code = res.headers.get(ERROR_CODE) as RefusalCode | null
      const field = typeof record.field === 'string' ? record.field : null
      if (SIGNED_OUT_CODES.has(code) || (code === null && res.status === 401))
        return { ok: false, status: res.status, code, error: SIGNED_OUT, field: null }
      const error =
        typeof record.error === 'string'
          ? readable(code, record.error, field)
          : `The server answered ${res.status}. Nothing was saved; try again.`
      return { ok: false, status: res.status, code, error, field }
    },
  }
}
