/**
 * The longest text each field may hold, in characters (docs/tickets-api.md): the API refuses
 * longer ones with `too_long`, and the pages' script says the same limit in its own words.
 */

export const SUBJECT_MAX = 500
export const SUMMARY_MAX = 100_000
export const SOURCE_MAX = 500
/** A comment's `text`. */
export const COMMENT_MAX = 100_000
/** A project's title and description. */
export const TITLE_MAX = 200
export const DESCRIPTION_MAX = 10_000
/** A token's label. */
export const LABEL_MAX = 200

/** The limit of each body field that has one, by the field's name. */
export const FIELD_MAX: Readonly<Record<string, number>> = {
  subject: SUBJECT_MAX,
  summary: SUMMARY_MAX,
  source: SOURCE_MAX,
  text: COMMENT_MAX,
  title: TITLE_MAX,
  description: DESCRIPTION_MAX,
  label: LABEL_MAX,
}
