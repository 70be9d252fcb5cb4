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

/** `GET /api/notes/wait` when too many waits are held in this process. */
export const TOO_MANY_WAITING = reason('too_many_waiting', 'too many waiting requests')

/** docs/notes-api.md, "Signing in". */
export const LOGIN = {
  getOnly: reason('login_failed', 'GET only'),
  noCode: reason('login_failed', 'idp sent no login code'),
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

/** Sharing with people (docs/notes-api.md, "Sharing with people"). */
export const SHARE = {
  notShared: reason('not_shared', 'this note is not shared with you'),
  readOnly: reason('read_only', 'this note is shared with you to read only'),
  op: reason('bad_field', "op must be 'share' or 'unshare'"),
  fields: reason('bad_field', "share needs id, person (strings) and access ('edit' or 'read')"),
  unshareFields: reason('bad_field', 'unshare needs id and person (strings)'),
  noPerson: reason('no_such_user', 'no one of that name has signed in to notes'),
  self: reason('bad_field', 'you cannot share a note with yourself'),
  name: reason('field_required', "'name' must not be empty"),
  tooMany: reason('too_many', 'a note can be shared with at most 50 people'),
} as const

/** `/api/notes/pins` (docs/notes-api.md, "Pins"). */
export const PINS = {
  op: reason('bad_field', "op must be 'pin' or 'unpin'"),
  fields: reason('bad_field', 'pin and unpin need id (string) and at (number)'),
} as const
