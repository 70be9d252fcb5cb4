/**
 * Refusals as values: the store functions answer `Denied` for a request they refuse, and
 * {@link answerDenied} is the one place that turns one into a response.
 */
import { json, type Headers, type Response } from '../response.ts'

/** A refused request: its status, the error text and, usually, the field it concerns. */
export interface Denied {
  ok: false
  status: 400 | 403 | 404
  error: string
  field?: string
}

/** A refusal; without `field` the answer is `{ error }` alone. */
export function deny(status: Denied['status'], error: string, field?: string): Denied {
  return field === undefined ? { ok: false, status, error } : { ok: false, status, error, field }
}

/** The response for a refusal: `{ error, field }`, or `{ error }` when it names no field. */
export function answerDenied(denied: Denied, headers?: Headers): Response {
  const body = denied.field === undefined ? { error: denied.error } : { error: denied.error, field: denied.field }
  return json(denied.status, body, headers)
}
