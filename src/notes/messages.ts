/**
 * Every message text of the notes service, in one place. The texts of docs/notes-api.md are kept
 * to the letter; `idp` stands where the document writes the identity provider's name.
 */

/** docs/notes-api.md, "Checks of /api/notes, in order". */
export const API = {
  signIn: 'log in with idp first',
  noSuchNote: 'no such note',
  methods: 'GET or POST only',
  getOnly: 'GET only',
  bodyNeeded: 'a JSON body is needed',
  saveFields: 'save needs id, local, text (strings) and base, at (numbers)',
  tooLong: 'id / local too long',
  deleteFields: 'delete needs id (string) and base (number)',
  op: "op must be 'save' or 'delete'",
} as const

/** docs/notes-api.md, "Signing in". */
export const LOGIN = {
  getOnly: 'GET only',
  noCode: 'idp sent no login code',
  loggedIn: 'logged in',
  failed: (reason: string) => `login failed: ${reason}`,
} as const

/** The field refusals (docs/notes-api.md, "Checks of /api/notes, in order", items 6 and 7). */
export const FIELD = {
  unknown: (name: string) => `unknown field '${name}'`,
  empty: (name: string) => `'${name}' must not be empty`,
  textTooLong: "'text' is longer than 1,000,000 characters",
  device: "'device' must be 1 to 64 characters",
  wholeNumber: (name: string) => `'${name}' must be a whole number from 0`,
  limit: "'limit' must be a whole number from 1 to 1000",
  cursor: "'after' must be a cursor from a 'next' address of this list",
  nul: (name: string) => `'${name}' must not contain the character U+0000`,
  surrogate: (name: string) => `'${name}' must be valid Unicode (it has a lone surrogate)`,
} as const
