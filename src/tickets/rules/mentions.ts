/**
 * Mentions (docs/notifications.md, "Mentions"): `@name` in a ticket's text or a comment names a
 * member of the ticket's project by their display name, or by that name without its spaces
 * (`@AnnLee` for "Ann Lee"), in any case of letters. A name two members share names neither (a
 * user reference is refused then too). The `@` starts the text or follows a character that is
 * not a letter, digit or `_` (so `bob@example.com` mentions nobody), and the name ends the text
 * or is followed by one that is not a letter, digit, `_` or `-`. Code (between backticks, or in
 * a fenced block) mentions nobody. Pure; the browser's `@` suggestions share {@link mentionKey}.
 *
 * @module
 */

/** A project member a mention may name. */
export interface Mentionable {
  id: string
  name: string
}

/** How a name is written after `@` without spaces: the display name with its white space taken out. */
export function mentionKey(name: string): string {
  return name.replace(/\s+/g, '')
}

const WORD = /[\p{L}\p{N}_]/u
const NAME_GOES_ON = /[\p{L}\p{N}_-]/u

/** The text without its code: fenced blocks and inline code spans become spaces. */
function withoutCode(text: string): string {
  let fence: string | null = null
  const lines = text.split('\n').map((line) => {
    const opens = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === null && opens) {
      fence = opens
      return ''
    }
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) fence = null
      return ' '.repeat(line.length)
    }
    return line
  })
  return lines.join('\n').replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length))
}

/**
 * The ids of the members `text` mentions, in the order of their first mention, each once.
 */
export function mentionedIn(text: string, members: readonly Mentionable[]): string[] {
  if (!text.includes('@') || members.length === 0) return []
  // Each way of writing a name, lower-cased, with the ids that answer to it.
  const names = new Map<string, Set<string>>()
  for (const m of members) {
    for (const written of new Set([m.name.trim(), mentionKey(m.name)])) {
      if (written === '') continue
      const key = written.toLowerCase()
      const ids = names.get(key) ?? new Set<string>()
      ids.add(m.id)
      names.set(key, ids)
    }
  }
  // Longest first, so "Ann Lee" wins over "Ann" when both are members.
  const keys = [...names.keys()].sort((a, b) => b.length - a.length)
  const plain = withoutCode(text)
  const lower = plain.toLowerCase()
  const found: string[] = []
  for (let at = lower.indexOf('@'); at !== -1; at = lower.indexOf('@', at + 1)) {
    if (at > 0 && WORD.test(plain[at - 1]!)) continue
    for (const key of keys) {
      if (!lower.startsWith(key, at + 1)) continue
      const after = plain[at + 1 + key.length]
      if (after !== undefined && NAME_GOES_ON.test(after)) continue
      const ids = names.get(key)!
      // A name two members share names neither.
      if (ids.size === 1) {
        const [id] = ids
        if (!found.includes(id!)) found.push(id!)
      }
      break
    }
  }
  return found
}

/**
 * The members `after` mentions that `before` did not (an edit of a ticket's text tells only
 * those newly mentioned).
 */
export function newlyMentioned(
  before: string,
  after: string,
  members: readonly Mentionable[],
): string[] {
  const old = new Set(mentionedIn(before, members))
  return mentionedIn(after, members).filter((id) => !old.has(id))
}
