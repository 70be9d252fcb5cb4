/**
 * Markdown to HTML for what people write: ticket subjects, summaries and comments. The same
 * module renders on the server (pages) and in the browser (the preview under a text box), so
 * what the preview shows is what the page will show.
 *
 * A line break inside a paragraph is kept (`<br>`), as in GitHub's comments.
 *
 * Safe by construction, not by filtering afterwards: markdown-it with raw HTML off (`<script>`
 * stays text), links and autolinks only to `http:`, `https:` and `mailto:` (a `javascript:` or
 * `data:` link stays text) and to this tracker's own files (`/files/<id>/<name>`), and images
 * shown as links, so a ticket cannot load a tracking pixel or anything else from another site.
 * The one exception is an image of this tracker's own files: it is shown, scaled to the column,
 * and opens full size on click.
 */
import MarkdownIt, { type StateCore } from 'markdown-it'

const ALLOWED_LINK = /^(?:https?:|mailto:)/i
/** An address of this tracker's own files, as their Markdown links them (src/tickets/rules/files.ts). */
const OWN_FILE = /^\/files\/[A-Za-z0-9_-]{22}\/(?!\.\.?$)[^\s"'<>\\/]*$/

function createRenderer(inline: boolean, links = true): InstanceType<typeof MarkdownIt> {
  // A single line break inside a paragraph stays a line break (`breaks`), as GitHub keeps it in
  // comments: people write addresses, steps and short lines and mean them as written.
  const md = new MarkdownIt({ html: false, linkify: links, typographer: false, breaks: !inline })
  // markdown-it's own check lets through every link but `javascript:`, `vbscript:`, `file:` and
  // most `data:`; ours lets through only what the issue asks for.
  md.validateLink = (url) => ALLOWED_LINK.test(url.trim()) || OWN_FILE.test(url.trim())
  const defaultOpen =
    md.renderer.rules.link_open ??
    ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options))
  md.renderer.rules.link_open = (tokens, i, options, env, self) => {
    tokens[i]!.attrSet('rel', 'nofollow noopener noreferrer')
    return defaultOpen(tokens, i, options, env, self)
  }
  md.renderer.rules.image = (tokens, i, options, env, self) => {
    const token = tokens[i]!
    const alt = self.renderInlineAsText(token.children ?? [], options, env)
    const src = String(token.attrGet('src') ?? '')
    if (OWN_FILE.test(src)) {
      const at = md.utils.escapeHtml(src)
      return `<a href="${at}" class="image-link"><img src="${at}" alt="${md.utils.escapeHtml(alt)}" loading="lazy"></a>`
    }
    return `<a href="${md.utils.escapeHtml(String(token.attrGet('src') ?? ''))}" rel="nofollow noopener noreferrer">${md.utils.escapeHtml(alt || 'image')}</a>`
  }
  if (!inline) md.core.ruler.after('inline', 'task_lists', taskLists)
  if (inline)
    md.disable([
      'heading',
      'lheading',
      'list',
      'blockquote',
      'code',
      'fence',
      'hr',
      'table',
      'reference',
    ])
  if (!links) md.disable(['link', 'autolink', 'image'])
  return md
}

/**
 * Task lists as GitHub draws them: a list item starting `[ ] ` or `[x] ` shows a checkbox,
 * ticked or not, that only shows (it is disabled: the text changes through Edit).
 */
function taskLists(state: StateCore): void {
  const tokens = state.tokens
  for (let i = 2; i < tokens.length; i++) {
    const t = tokens[i]!
    if (
      t.type !== 'inline' ||
      tokens[i - 1]!.type !== 'paragraph_open' ||
      tokens[i - 2]!.type !== 'list_item_open'
    )
      continue
    const marker = /^\[([ xX])\][ \t]+/.exec(t.content)
    const first = t.children?.[0]
    if (!marker || !first || first.type !== 'text' || !first.content.startsWith(marker[0])) continue
    first.content = first.content.slice(marker[0].length)
    const done = marker[1] !== ' '
    const box = new state.Token('html_inline', '', 0)
    box.content = `<input type="checkbox" disabled${done ? ' checked' : ''} aria-label="${done ? 'done' : 'not done'}"> `
    t.children!.unshift(box)
    tokens[i - 2]!.attrJoin('class', 'task')
  }
}

const block = createRenderer(false)
const inline = createRenderer(true)
const plainInline = createRenderer(true, false)

// Rendered summaries and comments by their text, the least recently used dropped past a total
// size: a ticket page renders every comment of its history on each request, and parsing is
// most of the page's own work. The output depends on the text alone, so the cache needs no
// invalidation.
const CACHE_CHARS = 4_000_000
const rendered = new Map<string, string>()
let cachedChars = 0

/** A summary or comment as HTML blocks (paragraphs, lists, code, quotes, tables). */
export function markdownToHtml(text: string): string {
  const known = rendered.get(text)
  if (known !== undefined) {
    // Moved to the end: the newest in the map's order.
    rendered.delete(text)
    rendered.set(text, known)
    return known
  }
  const out = block.render(text)
  const size = text.length + out.length
  if (size > CACHE_CHARS / 100) return out
  rendered.set(text, out)
  cachedChars += size
  for (const [oldest, html] of rendered) {
    if (cachedChars <= CACHE_CHARS) break
    rendered.delete(oldest)
    cachedChars -= oldest.length + html.length
  }
  return out
}

/**
 * A subject as HTML for one line: emphasis, code and links, no blocks, so `# Title` or `- item`
 * in a subject stays text.
 */
export function markdownInline(text: string): string {
  return inline.renderInline(text)
}

// Text without any character inline Markdown acts on renders as itself, escaped: most subjects,
// so a list of 50 skips the parser, the larger part of a row's cost.
// A colon is plain text here: this renderer links nothing, so `Ticket 12: crash` needs no parse.
const INLINE_SYNTAX = /[*_`[\]\\~!<&]|^\s|\s$|\s{2}/

/** A subject inside a link (a list row, a heading): inline marks without links of its own. */
export function markdownSubject(text: string): string {
  return INLINE_SYNTAX.test(text)
    ? plainInline.renderInline(text)
    : plainInline.utils.escapeHtml(text)
}
