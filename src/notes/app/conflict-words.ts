/**
 * The words of a conflicted copy, told from the device that shows it. Two devices changed the
 * same lines of a note; the server kept one text in the note and made the other a copy. On the
 * device whose save became the copy, the copy is "this device's" version and the note "the other
 * device's"; on every other device it is the other way round.
 *
 * @module
 */

export interface ConflictWords {
  /** Above the two versions. */
  hint: string
  /** The heading over the note's text (the left side). */
  noteSide: string
  /** The heading over the copy's text (the right side). */
  copySide: string
  /** The button that keeps the copy and deletes the note. */
  keepCopy: string
  /** The notice that a conflict happened, with the note's title. */
  notice(title: string): string
}

/**
 * The words for a copy whose text was written on this device (`here`) or on another one; `by`,
 * on a shared note, names the person who wrote the text the note kept.
 */
export function conflictWords(here: boolean, by?: string): ConflictWords {
  if (here && by !== undefined) return sharedWords(by)
  const mine = "this device's version"
  const theirs = "the other device's version"
  const [noteSide, copySide] = here ? [theirs, mine] : [mine, theirs]
  return {
    hint: here
      ? "The note holds the other device's version; this conflicted copy holds yours. Lines only in the other device's version are struck through, lines only in this device's are marked."
      : "The note holds this device's version; this conflicted copy holds the other device's. Lines only in this device's version are struck through, lines only in the other device's are marked.",
    noteSide: capital(noteSide),
    copySide: `${capital(copySide)} (conflicted copy)`,
    keepCopy: `Keep only ${copySide}`,
    notice: (title) =>
      here
        ? `Conflict in “${title}”: the other device changed the same lines while you edited them here. Both versions are kept; this device's is the conflicted copy.`
        : `Conflict in “${title}”: the other device changed the same lines as this device. Both versions are kept; the other device's is the conflicted copy.`,
  }
}

/** A shared note's copy, on the device whose save it holds: the note holds `by`'s words. */
function sharedWords(by: string): ConflictWords {
  return {
    hint: `The note holds ${by}'s version; this conflicted copy holds yours. Lines only in ${by}'s version are struck through, lines only in yours are marked.`,
    noteSide: `${by}'s version`,
    copySide: 'Your version (conflicted copy)',
    keepCopy: 'Keep only your version',
    notice: (title) =>
      `Conflict in “${title}”: ${by} changed the same lines while you edited them. Both versions are kept: the note holds ${by}'s, and yours is a conflicted copy among your own notes.`,
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
