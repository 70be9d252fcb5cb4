/**
 * HTML through one auto-escaping tagged template, the way every page of both services is
 * written:
 *
 * ```ts
 * const items = projects.map((p) => html`<li><a href="/${p.slug}">${p.title}</a></li>`)
 * const body = html`<h2>Projects</h2>
 * ${items.length ? html`<ul>${items}</ul>` : html`<p>No projects yet.</p>`}
 * <p class="${busy ? 'busy' : ''}">${note}</p>`
 * return htmlResponse(200, htmlDocument('Tickets', body))
 * ```
 *
 * Every interpolation is escaped (`&<>"'`), so it is safe in element content and in a quoted
 * attribute value, unless it is {@link Html} the template itself made (an `html` result, or
 * {@link rawHtml} for program-written constants such as a page's script). Arrays render item
 * by item; `null`, `undefined` and `false` render nothing, so `cond && html\`...\`` and
 * `cond ? html\`...\` : ''` both read well. Forgetting to escape is impossible; what a quoted
 * value cannot make safe is refused when the template first renders: an interpolation in an
 * unquoted attribute value (`value=${x}`), or anything but {@link Html} inside `<script>` or
 * `<style>`.
 */
import { PAGE_HEADERS } from './page-headers.ts'
import type { Headers, Response } from './response.ts'

const MADE_HERE = Symbol('html')

/** HTML the template made: interpolated as it is. Only `html`, `rawHtml` and `joinHtml` make one. */
export class Html {
  readonly text: string
  constructor(made: typeof MADE_HERE, text: string) {
    if (made !== MADE_HERE)
      throw new TypeError('Html values come from html`...`, rawHtml() or joinHtml()')
    this.text = text
  }

  toString(): string {
    return this.text
  }
}

const made = (text: string) => new Html(MADE_HERE, text)

/** What an interpolation may be. */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[]

/**
 * Where an interpolation stands in its template, found once per template: element content or a
 * quoted attribute value (escaped); inside `<script>` or `<style>` (only {@link Html}); right
 * after `=` in a tag (refused: an unquoted value cannot be escaped safely).
 */
type Place = 'text' | 'raw' | 'unquoted'

const places = new WeakMap<TemplateStringsArray, Place[]>()

/** The tagged template: interpolations escaped unless they are {@link Html}. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let where = places.get(strings)
  if (where === undefined) places.set(strings, (where = placesOf(strings)))
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) {
    const place = where[i]!
    const value = values[i]
    if (place !== 'text') refuseAt(strings, i, place, value)
    out += render(value) + strings[i + 1]!
  }
  return made(out)
}

/**
 * Text that is already HTML, written by the program: a page's constant script or style. Never
 * give it anything that came from a request or the database.
 */
export function rawHtml(text: string): Html {
  return made(text)
}

/** The values rendered one after another with `separator` between them. */
export function joinHtml(values: readonly HtmlValue[], separator: Html | string): Html {
  const sep = render(separator)
  let out = ''
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : sep) + render(values[i])
  return made(out)
}

function render(value: HtmlValue): string {
  if (typeof value === 'string') return escapeHtml(value)
  if (value instanceof Html) return value.text
  if (typeof value === 'number') return String(value)
  if (value === null || value === undefined || value === false) return ''
  if (Array.isArray(value)) {
    let out = ''
    for (const item of value as readonly HtmlValue[]) out += render(item)
    return out
  }
  throw new TypeError(
    `html: cannot render ${typeof value} ${String(value)}; give a string, a number or html`,
  )
}

/** Finds for each interpolation whether it stands in text, in a script or style, or unquoted. */
function placesOf(strings: TemplateStringsArray): Place[] {
  const out: Place[] = []
  let before = ''
  for (let i = 0; i < strings.length - 1; i++) {
    before += strings[i]
    const lower = before.toLowerCase()
    const opened = Math.max(lower.lastIndexOf('<script'), lower.lastIndexOf('<style'))
    const inTag = before.lastIndexOf('<') > before.lastIndexOf('>')
    // Inside a script or style element, not in its opening tag's attributes (`<script src="${url}">`).
    const raw =
      opened > Math.max(lower.lastIndexOf('</script'), lower.lastIndexOf('</style')) &&
      !(inTag && before.lastIndexOf('<') === opened)
    out.push(raw ? 'raw' : inTag && /=\s*$/.test(before) ? 'unquoted' : 'text')
    before += '\0'
  }
  return out
}

function refuseAt(strings: TemplateStringsArray, i: number, place: Place, value: HtmlValue): void {
  if (place === 'raw' && value instanceof Html) return
  const at = JSON.stringify(strings[i]!.slice(-40))
  if (place === 'raw')
    throw new TypeError(`html: only rawHtml may go inside <script> or <style> (after ${at})`)
  throw new TypeError(
    `html: quote the attribute value (after ${at}); an unquoted one cannot be escaped safely`,
  )
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  // Most text has nothing to escape: a test without a copy is cheaper than a replace that makes one.
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => HTML_ESCAPES[c] as string) : value
}
const NEEDS_ESCAPE = /[&<>"']/
const ESCAPED = /[&<>"']/g
const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** What a page's document has beyond what every page's has. */
export interface DocumentParts {
  title: string | Html
  /** Elements of the `<head>` after the title: stylesheets, icons, scripts, `<meta>`s. */
  head?: Html
  /** The `<body>` element's class. */
  bodyClass?: string
  /** `viewport-fit=cover`: the page draws under a phone's rounded corners and notch itself. */
  coverViewport?: boolean
}

/**
 * The one HTML document every page is: English, UTF-8, a viewport for phones, `title`, the
 * page's own `head` elements, then `body`.
 */
export function htmlPage(parts: DocumentParts, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1${parts.coverViewport ? ', viewport-fit=cover' : ''}">
<title>${parts.title}</title>
${
  parts.head
    ? html`${parts.head}
`
    : ''
}</head>
<body${parts.bodyClass ? html` class="${parts.bodyClass}"` : ''}>
${body}
</body>
</html>
`
}

/** A small HTML document: `title` as its title and heading, then `body`. */
export function htmlDocument(title: string, body: Html): Html {
  return htmlPage(
    { title },
    html`<h1>${title}</h1>
${body}`,
  )
}

/**
 * An HTML answer, with the page headers every page carries ({@link PAGE_HEADERS}: a strict
 * Content-Security-Policy, no framing, nosniff, same-origin referrer); a page that needs its
 * own policy passes it in `headers`, which win.
 */
export function htmlResponse(status: number, body: Html, headers?: Headers): Response {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS, ...headers },
    body: body.text,
  }
}
