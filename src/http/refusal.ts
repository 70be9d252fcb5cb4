/**
 * The one refusal of both services: `{ status, code, message, field? }`. A check or a domain
 * function answers a {@link Refusal} for a request it refuses, and {@link answerRefusal} is the
 * one place that turns one into a response. A refusal made inside a transaction rolls it back
 * (the ticket store's `transact` recognises it by `instanceof`); the body reader rejects with one.
 *
 * The `code` is stable and decides (in the browser too); the `message` is for people, and its
 * words are the interface documents'. The answer's body keeps the documents' shape, `{ error }`
 * or `{ error, field }`; the code travels in the {@link ERROR_CODE} header (docs/core.md,
 * "Refusals").
 *
 * @module
 */
import { json, type Headers, type Response } from './response.ts'

/** The statuses a refusal answers with. */
export type RefusalStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 429 | 500 | 503

/**
 * Every code a refusal may carry (docs/core.md, "Refusals", lists what each means). A code
 * names what went wrong, not the words: two messages may share one.
 */
export type RefusalCode =
  // Requests and bodies, both services.
  | 'bad_json'
  | 'body_too_large'
  | 'body_incomplete'
  | 'body_needed'
  | 'unknown_field'
  | 'field_required'
  | 'not_a_string'
  | 'bad_text'
  | 'too_long'
  | 'bad_field'
  | 'wrong_content_type'
  | 'cross_site'
  | 'bad_tag'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'too_many_waiting'
  | 'database_unavailable'
  | 'internal_error'
  // Credentials and roles.
  | 'not_signed_in'
  | 'token_needed'
  | 'bad_token'
  | 'user_token_needed'
  | 'forbidden'
  // A note shared with a person: not theirs, or theirs to read only (notes).
  | 'not_shared'
  | 'read_only'
  // Things a request names that are not there.
  | 'no_such_ticket'
  | 'no_such_project'
  | 'no_such_note'
  | 'no_such_token'
  | 'no_such_invite'
  | 'no_such_connection'
  | 'no_such_webhook'
  | 'no_such_delivery'
  | 'no_such_user'
  | 'no_such_label'
  | 'no_such_milestone'
  | 'no_such_notification'
  | 'no_such_view'
  | 'no_such_change'
  // Rules of the tickets service.
  | 'bad_query'
  | 'already_so'
  | 'edit_conflict'
  | 'last_admin'
  | 'slug_taken'
  | 'label_taken'
  | 'milestone_taken'
  | 'invite_used_up'
  | 'invite_expired'
  | 'invite_revoked'
  | 'bad_code'
  | 'bad_relation'
  | 'too_many'
  | 'bad_import'
  // Files attached to tickets.
  | 'file_too_large'
  | 'project_files_full'
  | 'file_empty'
  | 'no_such_file'
  // Signing in.
  | 'login_failed'
  | 'bad_login_request'
  | 'bad_form'
  | 'form_expired'
  // The provider's accounts.
  | 'name_taken'
  | 'owner_exists'
  | 'place_taken'
  | 'link_used'
  | 'identity_taken'
  | 'signup_closed'
  | 'no_such_reset_link'
  | 'too_many_attempts'
  | 'bad_app_secret'

/** What went wrong, in code and in words: a refusal without its status and field. */
export interface Reason {
  readonly code: RefusalCode
  readonly message: string
}

/** A {@link Reason}. */
export function reason(code: RefusalCode, message: string): Reason {
  return { code, message }
}

/** A refused request: its status, its code, the message and, often, the field it concerns. */
export class Refusal {
  /** False, so a result `{ ok: true, ... } | Refusal` narrows on `ok`. */
  readonly ok = false
  constructor(
    readonly status: RefusalStatus,
    readonly code: RefusalCode,
    readonly message: string,
    /** The field the refusal concerns; without it the answer is `{ error }` alone. */
    readonly field?: string,
  ) {}
}

/** Whether a result that is a value or a refusal is the refusal. */
export const isRefusal = <T>(x: T | Refusal): x is Refusal => x instanceof Refusal

/** A refusal with `status` for `why`, naming `field` when given. */
export function refuse(status: RefusalStatus, why: Reason, field?: string): Refusal {
  return new Refusal(status, why.code, why.message, field)
}

/** The header that carries a refusal's {@link RefusalCode}. */
export const ERROR_CODE = 'x-error-code'

/**
 * The response for a refusal: `{ error, field }`, or `{ error }` when it names no field, with
 * the code in {@link ERROR_CODE}. `headers` are added (a `Vary`, an `Allow`, a `Retry-After`).
 */
export function answerRefusal(refusal: Refusal, headers?: Headers): Response {
  const body =
    refusal.field === undefined
      ? { error: refusal.message }
      : { error: refusal.message, field: refusal.field }
  return json(refusal.status, body, Object.assign({ [ERROR_CODE]: refusal.code }, headers))
}
