/**
 * Tags written in a note's text: `#word` or `#word/sub`. A tag starts with a letter (of any
 * script) and goes on with letters, digits, combining marks, `_` and `-`; each `/` starts a
 * sub-tag. A `#` is a tag's only where no letter, digit, `_`, `#`, `&`, `/` or `\` comes right
 * before it, so a heading's leading `#`s (`## Plans`), `C#`, `&#39;`, `issue #42`, `a#b` and an
 * escaped `\#word` are no tags. Text in code (a span between backticks, a fenced block), web
 * addresses (`https://example.com/#top`, `www.…`, `<…>`) and a Markdown link's destination
 * (`[see](#part)`) is passed over.
 *
 * Tags compare without case and in Unicode's composed form: `#Work` and `#work` are one tag,
 * named `work`. Nothing of this goes to the server: the app reads tags from its copy.
 *
 * @module
 */

const PART = String.raw`[\p{L}\p{N}\p{M}_-]`
/** A tag in the text: group 1 is its name as written. */
const TAG = new RegExp(String.raw`(?<![\p{L}\p{N}\p{M}_#&/\\])#(\p{L}${PART}*(?:/${PART}+)*)`, 'gu')
/** A whole tag name, as typed to rename one or to search (`work/plans`, without the `#`). */
const NAME = new RegExp(String.raw`^\p{L}${PART}*(?:/${PART}+)*$`, 'u')

/** A fence of a code block: three or more backticks or tildes, indented at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/
/** Web addresses, autolinks and link destinations, passed over. */
const SKIPPED = /\b[a-z][a-z0-9+.-]*:\/\/\S*|\bwww\.\S*|<[^<>\s]+>|\]\([^()\s]*\)/gi

/** The key of a tag name: lower case, composed. */
export function tagKey(name: string): string {
  return name.normalize('NFC').toLowerCase()
}

/** Whether `name` (without `#`) is a tag name. */
export function isTagName(name: string): boolean {
  return NAME.test(name)
}

/** A tag found in a text: where its `#` is, and its name as written. */
interface Found {
  at: number
  name: string
}

/** Stands for a skipped character: no part of a tag, and a tag may follow it. */
const BLANK = '\u0001'

/** `line` with its code spans, addresses and link destinations blanked out (same length). */
function blankSkipped(line: string): string {
  let out = line.replace(SKIPPED, (m) => BLANK.repeat(m.length))
  // A code span: a run of backticks up to the next run of the same length.
  let i = out.indexOf('`')
  while (i !== -1) {
    let run = 1
    while (out[i + run] === '`') run++
    const fence = '`'.repeat(run)
    let close = out.indexOf(fence, i + run)
    while (close !== -1 && out[close + run] === '`') {
      let skip = close + run
      while (out[skip] === '`') skip++
      close = out.indexOf(fence, skip)
    }
    if (close === -1) {
      i = out.indexOf('`', i + run)
      continue
    }
    out = out.slice(0, i) + BLANK.repeat(close + run - i) + out.slice(close + run)
    i = out.indexOf('`', close + run)
  }
  return out
}

/** Every tag of `text` where it is written, in order. */
function findTags(text: string): Found[] {
  if (!text.includes('#')) return []
  const found: Found[] = []
  let fence: string | null = null
  let start = 0
  for (const line of text.split('\n')) {
    const opening = FENCE.exec(line)
    if (fence !== null) {
      // A fence closes with at least as many of the same character and nothing after them.
      if (
        opening &&
        opening[1]![0] === fence[0] &&
        opening[1]!.length >= fence.length &&
        line.slice(opening[0].length).trim() === ''
      )
        fence = null
    } else if (opening) {
      fence = opening[1]!
    } else if (line.includes('#')) {
      for (const m of blankSkipped(line).matchAll(TAG))
        found.push({ at: start + m.index, name: m[1]! })
    }
    start += line.length + 1
  }
  return found
}

/** The tags of `text`, each once, by key, in the order they first appear. */
export function tagsOf(text: string): string[] {
  return [...new Set(findTags(text).map((t) => tagKey(t.name)))]
}

/** Whether a note with the tags `tags` has the tag `tag` or one of its sub-tags. */
export function hasTag(tags: readonly string[], tag: string): boolean {
  const under = `${tag}/`
  return tags.some((t) => t === tag || t.startsWith(under))
}

/**
 * `text` with the tag `from` (a key) and its sub-tags renamed to `to`: `#from` becomes `#to`
 * and `#from/sub` becomes `#to/sub`. Other text, code and addresses stay as they are.
 */
export function renameTag(text: string, from: string, to: string): string {
  const depth = from.split('/').length
  let out = ''
  let last = 0
  for (const tag of findTags(text)) {
    const parts = tag.name.split('/')
    if (parts.length < depth || tagKey(parts.slice(0, depth).join('/')) !== from) continue
    const prefix = parts.slice(0, depth).join('/')
    out += `${text.slice(last, tag.at)}#${to}`
    last = tag.at + 1 + prefix.length
  }
  return out + text.slice(last)
}

/** A tag in the list: its name's last part, how many notes have it or a sub-tag, its sub-tags. */
export interface TagNode {
  /** The whole key, `work/plans`. */
  tag: string
  /** The last part, `plans`. */
  label: string
  count: number
  children: TagNode[]
}

/**
 * The tags of `notes` as a tree, each counted once a note that has it or one of its sub-tags
 * (a parent is counted even where only its sub-tags are written), in alphabetical order.
 */
export function tagTree(notes: Iterable<{ tags: readonly string[] }>): TagNode[] {
  const counts = new Map<string, number>()
  const seen = new Set<string>()
  for (const note of notes) {
    if (note.tags.length === 0) continue
    seen.clear()
    for (const tag of note.tags) {
      let cut = tag.length
      // The tag, then each parent: `a/b/c`, `a/b`, `a`.
      while (cut > 0) {
        const name = tag.slice(0, cut)
        if (!seen.has(name)) {
          seen.add(name)
          counts.set(name, (counts.get(name) ?? 0) + 1)
        }
        cut = tag.lastIndexOf('/', cut - 1)
      }
    }
  }
  const nodes = new Map<string, TagNode>()
  const roots: TagNode[] = []
  for (const tag of [...counts.keys()].sort(compareTags)) {
    const slash = tag.lastIndexOf('/')
    const node: TagNode = {
      tag,
      label: tag.slice(slash + 1),
      count: counts.get(tag)!,
      children: [],
    }
    nodes.set(tag, node)
    if (slash === -1) roots.push(node)
    else nodes.get(tag.slice(0, slash))!.children.push(node)
  }
  return roots
}

const collator = new Intl.Collator(undefined, { numeric: true })

/** Parents before their sub-tags, and alphabetical among siblings. */
function compareTags(a: string, b: string): number {
  const pa = a.split('/')
  const pb = b.split('/')
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = collator.compare(pa[i]!, pb[i]!) || (pa[i]! < pb[i]! ? -1 : pa[i]! > pb[i]! ? 1 : 0)
    if (c !== 0) return c
  }
  return pa.length - pb.length
}
