/**
 * Refusals as values: a domain function or check answers a {@link Refusal} for a request it
 * refuses, and {@link answerRefusal} is the one place that turns one into a response. A refusal
 * made inside a transaction rolls it back (the store's `transact` recognises it by `instanceof`).
 */
import { json, type Headers, type Response } from './response.ts'

/** The statuses a refusal answers with. */
export type RefusalStatus = 400 | 401 | 403 | 404 | 412 | 413 | 415

/** A refused request: its status, the error text and, usually, the field it concerns. */
export class Refusal {
  /** False, so a result `{ ok: true, ... } | Refusal` narrows on `ok`. */
  readonly ok = false
  constructor(
    readonly status: RefusalStatus,
    readonly error: string,
    /** The field the error concerns; without it the answer is `{ error }` alone. */
    readonly field?: string,
  ) {}
}

/** A refusal with `status` and `error`, naming `field` when given. */
export function refuse(status: RefusalStatus, error: string, field?: string): Refusal {
  return new Refusal(status, error, field)
}

/** The response for a refusal: `{ error, field }`, or `{ error }` when it names no field. */
export function answerRefusal(refusal: Refusal, headers?: Headers): Response {
  const body = refusal.field === undefined ? { error: refusal.error } : { error: refusal.error, field: refusal.field }
  return json(refusal.status, body, headers)
}
