/**
 * Every message text of the notes service, in one place. The texts of docs/notes-api.md are kept
 * to the letter; `idp` stands where the document writes the identity provider's name. A
 * refusal's message is a `Reason` (src/http/refusal.ts): its stable code beside its words.
 */
import { reason } from '../http/refusal.ts'

/** docs/notes-api.md, "Checks of /api/notes, in order". */
export const API = {
  signIn: reason('not_signed_in', 'log in with idp first'),
  noSuchNote: reason('no_such_note', 'no such note'),
  methods: reason('method_not_allowed', 'GET or POST only'),
  getOnly: reason('method_not_allowed', 'GET only'),
  bodyNeeded: reason('body_needed', 'a JSON body is needed'),
  saveFields: reason('bad_field', 'save needs id, local, text (strings) and base, at (numbers)'),
  tooLong: reason('too_long', 'id / local too long'),
  deleteFields: reason('bad_field', 'delete needs id (string) and base (number)'),
  op: reason('bad_field', "op must be 'save' or 'delete'"),
  /** POST /api/notes/trash (docs/notes-api.md, "Recently deleted"). */
  trashOp: reason('bad_field', "op must be 'empty'"),
  /** POST /api/notes/publications (docs/notes-api.md, "Publishing"). */
  publishOp: reason('bad_field', "op must be 'publish' or 'unpublish'"),
  publishFields: reason('bad_field', 'publish and unpublish need id (string)'),
} as const

/** docs/notes-api.md, "Signing in". */
export const LOGIN = {
  getOnly: 'GET only',
  noCode: 'idp sent no login code',
  loggedIn: 'logged in',
  failed: (why: string) => `login failed: ${why}`,
} as const

/** The field refusals (docs/notes-api.md, "Checks of /api/notes, in order", items 6 and 7). */
export const FIELD = {
  unknown: (name: string) => reason('unknown_field', `unknown field '${name}'`),
  empty: (name: string) => reason('field_required', `'${name}' must not be empty`),
  textTooLong: reason('too_long', "'text' is longer than 1,000,000 characters"),
  device: reason('bad_field', "'device' must be 1 to 64 characters"),
  wholeNumber: (name: string) => reason('bad_field', `'${name}' must be a whole number from 0`),
  limit: reason('bad_field', "'limit' must be a whole number from 1 to 1000"),
  cursor: reason('bad_field', "'after' must be a cursor from a 'next' address of this list"),
  nul: (name: string) => reason('bad_text', `'${name}' must not contain the character U+0000`),
  surrogate: (name: string) =>
    reason('bad_text', `'${name}' must be valid Unicode (it has a lone surrogate)`),
} as const
