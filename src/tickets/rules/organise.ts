/**
 * The pure rules of labels, milestones and due dates (docs/tickets-api.md, "Labels, milestones
 * and due dates"): what a label's name and colour and a milestone's title may be, and the day
 * format of due dates. The domain (src/tickets/domain/labels.ts, milestones.ts, organise.ts)
 * refuses what these reject.
 */
import { isDay } from './query.ts'

export { isDay }

/** At most this many tickets are changed by one bulk change (src/tickets/domain/bulk.ts). */
export const BULK_MAX = 1000

/** A label's name, in characters. */
export const LABEL_NAME_MAX = 50
/** A label's description, in characters. */
export const LABEL_DESCRIPTION_MAX = 200
/** A milestone's title, in characters. */
export const MILESTONE_TITLE_MAX = 100
/** A project has at most this many labels, and as many milestones. */
export const LABELS_MAX = 500
export const MILESTONES_MAX = 500

// Double quotes could not be written inside a search's `label:"…"`; control characters are
// no name.
const NOT_IN_NAMES = /["\u0000-\u001f\u007f-\u009f]/

/** A name or title trimmed, or null when it is empty, longer than `max` or has a character names may not. */
export function cleanName(text: string, max: number): string | null {
  const name = text.trim()
  if (name === '' || name.length > max || NOT_IN_NAMES.test(name)) return null
  return name
}

/** `#rrggbb` (any case) in lower case, or null for anything else. */
export function cleanColor(text: string): string | null {
  return /^#[0-9a-fA-F]{6}$/.test(text.trim()) ? text.trim().toLowerCase() : null
}
