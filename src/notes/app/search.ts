/**
 * The search of the list: each word typed must begin a word of the note (`errand 5` finds
 * "Errand 5" and "errands 52", not "Errand 15"), and notes whose title is exactly what was
 * typed come first, then those whose title has every word, then the rest, each group newest
 * first as the list is. A word that is a tag (`#work`) keeps the notes with that tag or one of
 * its sub-tags (src/notes/app/tags.ts).
 *
 * @module
 */

import { hasTag, isTagName, tagKey } from './tags.ts'

/** A search, ready to test notes with; see {@link parseQuery}. */
export interface Query {
  /** The words that are no tags, lower case, spaces made single: compared with a note's title. */
  text: string
  /** One pattern a word: the word at the start of a word of the text. */
  patterns: RegExp[]
  /** The tags typed (`#work`), by key: a note must have each, or one of its sub-tags. */
  tags: string[]
}

/** A note as the search sees it: its text and its title, both lower case, and its tags. */
export interface Searchable {
  lower: string
  titleLower: string
  tags: readonly string[]
}

/** The search typed in the box, or null when it has no words (the whole list shows). */
export function parseQuery(typed: string): Query | null {
  const typedWords = typed
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
  if (typedWords.length === 0) return null
  const isTag = (w: string) => w.startsWith('#') && isTagName(w.slice(1))
  const tags = typedWords.filter(isTag).map((w) => tagKey(w.slice(1)))
  const words = typedWords.filter((w) => !isTag(w))
  // A word starts where no letter or digit comes before it: "5" begins "5 kg", not "15".
  const patterns = words.map(
    (w) => new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u'),
  )
  return { text: words.join(' '), patterns, tags }
}

/** The one tag a search is made of (`#work`, as choosing a tag in the list types it), or null. */
export function tagSearched(typed: string): string | null {
  const query = parseQuery(typed)
  return query !== null && query.tags.length === 1 && query.patterns.length === 0
    ? query.tags[0]!
    : null
}

/** Whether `note` has every word of `query` at the start of one of its words. */
export function matches(query: Query, lower: string): boolean {
  return query.patterns.every((p) => p.test(lower))
}

/** 0: the title is exactly the search; 1: the title has every word; 2: only the text does. */
export function rankOf(query: Query, titleLower: string): 0 | 1 | 2 {
  if (query.patterns.length === 0) return 2
  if (
    titleLower
      .split(/\s+/)
      .filter((w) => w !== '')
      .join(' ') === query.text
  )
    return 0
  return matches(query, titleLower) ? 1 : 2
}

/**
 * The notes of `notes` (in the list's order) that match `query`, exact titles first, then
 * titles with every word, then the rest; each group keeps the list's order.
 */
export function search<T extends Searchable>(notes: readonly T[], query: Query): T[] {
  const groups: [T[], T[], T[]] = [[], [], []]
  for (const note of notes)
    if (matches(query, note.lower) && query.tags.every((tag) => hasTag(note.tags, tag)))
      groups[rankOf(query, note.titleLower)].push(note)
  return groups.flat()
}
