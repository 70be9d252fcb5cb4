/**
 * Every message text of the notes service, in one place. The texts of notes-interface.md are kept
 * to the letter; `idp` stands where the interface writes the identity provider's name.
 */

/** notes-interface.md section 4.4 and section 7. */
export const API = {
  signIn: 'log in with idp first',
  noSuchNote: 'no such note',
  methods: 'GET or POST only',
  bodyNeeded: 'a JSON body is needed',
  notAnObject: 'the body must be a JSON object',
  saveFields: 'save needs id, local, text (strings) and base, at (numbers)',
  tooLong: 'id / local too long',
  deleteFields: 'delete needs id (string) and base (number)',
  op: "op must be 'save' or 'delete'",
} as const

/** notes-interface.md section 4.1. */
export const LOGIN = {
  getOnly: 'GET only',
  noCode: 'idp sent no login code',
  loggedIn: 'logged in',
  failed: (reason: string) => `login failed: ${reason}`,
} as const

/** Refusals the interface leaves open (decisions.md section 5, docs/notes-api.md). */
export const FIELD = {
  unknown: (name: string) => `unknown field '${name}'`,
  empty: (name: string) => `'${name}' must not be empty`,
  textTooLong: "'text' is longer than 1,000,000 characters",
  wholeNumber: (name: string) => `'${name}' must be a whole number from 0`,
  nul: (name: string) => `'${name}' must not contain the character U+0000`,
  surrogate: (name: string) => `'${name}' must be valid Unicode (it has a lone surrogate)`,
} as const
