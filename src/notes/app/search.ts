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

/**
 * Where the words of `query` begin words of `text` (the text as written, not lower-cased, so
 * the places are the text's own): `[start, end)` pairs in order, overlaps joined.
 */
export function matchedRanges(query: Query, text: string): [number, number][] {
  const found: [number, number][] = []
  for (const pattern of query.patterns) {
    const every = new RegExp(pattern.source, 'giu')
    for (const m of text.matchAll(every))
      if (m[0].length > 0) found.push([m.index, m.index + m[0].length])
  }
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const joined: [number, number][] = []
  for (const [start, end] of found) {
    const last = joined.at(-1)
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else joined.push([start, end])
  }
  return joined
}

/** A piece of a search result's words: plain, or a matched word (`mark`). */
export interface Piece {
  text: string
  mark: boolean
}

/** `text` cut into pieces at `ranges` (from {@link matchedRanges}, relative to `text`). */
export function pieces(text: string, ranges: readonly [number, number][]): Piece[] {
  const out: Piece[] = []
  let at = 0
  for (const [start, end] of ranges) {
    if (start >= text.length) break
    if (start > at) out.push({ text: text.slice(at, start), mark: false })
    out.push({ text: text.slice(Math.max(start, at), Math.min(end, text.length)), mark: true })
    at = Math.min(end, text.length)
  }
  if (at < text.length) out.push({ text: text.slice(at), mark: false })
  return out
}

/** How many characters of the text an excerpt shows before its first matched word. */
const BEFORE = 16
/** How long an excerpt is at most. */
const EXCERPT = 140

/**
 * The words of a result around its first match after the title line (`bodyStart`, where the
 * text after the title begins), on one line, as pieces with the matched words marked; null when
 * no word matched there (the list then shows the note's usual preview).
 */
export function excerptOf(query: Query, text: string, bodyStart: number): Piece[] | null {
  const body = text.slice(bodyStart, bodyStart + 20_000)
  const ranges = matchedRanges(query, body)
  if (ranges.length === 0) return null
  const first = ranges[0]![0]
  let from = Math.max(0, first - BEFORE)
  // Start at a word: past the rest of a word cut in two.
  if (from > 0) {
    const space = body.slice(from, first).search(/\s/)
    from = space === -1 ? first : from + space + 1
  }
  const window = body.slice(from, from + EXCERPT)
  const shifted = ranges
    .map(([s, e]): [number, number] => [s - from, e - from])
    .filter(([s]) => s >= 0 && s < window.length)
  // One line: every run of white space one space (lengths kept, so the ranges stay right).
  const flat = window.replace(/\s/g, ' ')
  const out = pieces(flat, shifted)
  if (from > 0) out.unshift({ text: '…', mark: false })
  if (from + EXCERPT < body.length) out.push({ text: '…', mark: false })
  return out
}
