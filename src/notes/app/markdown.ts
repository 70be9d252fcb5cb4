/**
 * A note's text read as Markdown: the app's reading view, and the published page on the server
 * (the same module, so the page shows what the owner read).
 *
 * Safe by construction, not by filtering afterwards: markdown-it with raw HTML off (`<script>`
 * stays text), links only to `http:`, `https:` and `mailto:` (a `javascript:` or `data:` link
 * stays text), and images drawn as links, so a note cannot load a tracking pixel or anything
 * else from another site. A task list item (`- [ ] call Ana`) gets a checkbox that names the line
 * of the text it stands for, so ticking it can edit exactly that `[ ]` ({@link toggleTask}).
 *
 * @module
 */
import MarkdownIt, { type StateCore } from 'markdown-it'

const ALLOWED_LINK = /^(?:https?:|mailto:)/i

function createRenderer(): InstanceType<typeof MarkdownIt> {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: true })
  // markdown-it's own check lets through every link but `javascript:`, `vbscript:`, `file:` and
  // most `data:`; ours only what a reader can follow safely.
  md.validateLink = (url) => ALLOWED_LINK.test(url.trim())
  const defaultOpen =
    md.renderer.rules.link_open ??
    ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options))
  md.renderer.rules.link_open = (tokens, i, options, env, self) => {
    tokens[i]!.attrSet('rel', 'nofollow noopener noreferrer')
    tokens[i]!.attrSet('target', '_blank')
    return defaultOpen(tokens, i, options, env, self)
  }
  md.renderer.rules.image = (tokens, i, options, env, self) => {
    const token = tokens[i]!
    const alt = self.renderInlineAsText(token.children ?? [], options, env)
    const src = String(token.attrGet('src') ?? '')
    const label = md.utils.escapeHtml(alt || 'image')
    // validateLink has already turned a link it refuses into text; an image is checked here.
    return ALLOWED_LINK.test(src)
      ? `<a href="${md.utils.escapeHtml(src)}" rel="nofollow noopener noreferrer" target="_blank">${label}</a>`
      : label
  }
  md.core.ruler.after('inline', 'task_lists', taskLists)
  return md
}

/**
 * Task lists as GitHub draws them: a list item starting `[ ] ` or `[x] ` shows a checkbox, ticked
 * or not, labelled by the item's words and naming the line of the text it stands for
 * (`data-line`, counted from 0).
 */
function taskLists(state: StateCore): void {
  const tokens = state.tokens
  for (let i = 2; i < tokens.length; i++) {
    const t = tokens[i]!
    const item = tokens[i - 2]!
    if (
      t.type !== 'inline' ||
      tokens[i - 1]!.type !== 'paragraph_open' ||
      item.type !== 'list_item_open' ||
      !item.map
    )
      continue
    const marker = /^\[([ xX])\][ \t]+/.exec(t.content)
    const first = t.children?.[0]
    if (!marker || !first || first.type !== 'text' || !first.content.startsWith(marker[0])) continue
    first.content = first.content.slice(marker[0].length)
    const line = item.map[0]
    const done = marker[1] !== ' '
    const box = new state.Token('html_inline', '', 0)
    const shown = (state.env as { tasks?: string } | undefined)?.tasks === 'shown'
    box.content = `<input type="checkbox" class="task-box" data-line="${line}" aria-labelledby="task-${line}"${done ? ' checked' : ''}${shown ? ' disabled' : ''}> <span id="task-${line}">`
    const close = new state.Token('html_inline', '', 0)
    close.content = '</span>'
    t.children!.unshift(box)
    t.children!.push(close)
    item.attrJoin('class', 'task')
  }
}

const renderer = createRenderer()

/**
 * A note's text as HTML: headings, paragraphs, lists with task boxes, code, quotes, tables.
 * `tasks: 'shown'` draws the task boxes disabled (a published page, where nobody ticks them).
 */
export function noteHtml(text: string, options: { tasks?: 'tick' | 'shown' } = {}): string {
  return renderer.render(text, { tasks: options.tasks ?? 'tick' })
}

export { toggleTask } from './tasks.ts'
