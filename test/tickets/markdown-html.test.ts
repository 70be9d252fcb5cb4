import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  markdownInline,
  markdownSubject,
  markdownToHtml,
} from '../../src/tickets/app/markdown-html.ts'

/** The XSS payloads the issue names, and their usual cousins. */
export const XSS_PAYLOADS = [
  '<script>alert(1)</script>',
  '"><svg onload=alert(1)>',
  "'><img src=x onerror=alert(1)>",
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click]( javascript:alert(1))',
  '[click](java&#x73;cript:alert(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[click](vbscript:msgbox(1))',
  '<javascript:alert(1)>',
  '![x](javascript:alert(1))',
  '[x]: javascript:alert(1)\n\n[x]',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '`<script>`',
  '```html\n<script>alert(1)</script>\n```',
  '[a](https://ok.example "t\\" onmouseover=\\"alert(1)")',
]

const ELEMENTS = new Set([
  'p',
  'a',
  'em',
  'strong',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'br',
  's',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
])
const ATTRIBUTES = new Set(['href', 'rel', 'class', 'title', 'start', 'style'])

/** The elements and attributes an HTML fragment makes, checked against what Markdown may make. */
function assertOnlyMarkdownElements(html: string): void {
  for (const [, name, attrs] of html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    assert.ok(ELEMENTS.has(name!.toLowerCase()), `element <${name}> in ${html}`)
    for (const [, attr, value] of attrs!.matchAll(/\s([^\s=]+)="([^"]*)"/g)) {
      assert.ok(ATTRIBUTES.has(attr!.toLowerCase()), `attribute ${attr} in ${html}`)
      if (attr === 'href') assert.match(value!, /^(https?:|mailto:)/i, `link ${value} in ${html}`)
      if (attr === 'style') assert.match(value!, /^text-align:(left|right|center)$/)
    }
  }
}

test('no XSS payload makes an element or a link that runs script, in blocks or in one line', () => {
  for (const payload of XSS_PAYLOADS) {
    assertOnlyMarkdownElements(markdownToHtml(payload))
    assertOnlyMarkdownElements(markdownInline(payload))
    assertOnlyMarkdownElements(markdownSubject(payload))
  }
})

test('raw HTML stays text', () => {
  assert.equal(
    markdownToHtml('<script>alert(1)</script>'),
    '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n',
  )
  assert.equal(markdownInline('"><svg onload=alert(1)>'), '&quot;&gt;&lt;svg onload=alert(1)&gt;')
})

test('a javascript: link stays text, an https link becomes a link that passes no referrer', () => {
  assert.equal(
    markdownToHtml('[click](javascript:alert(1))'),
    '<p>[click](javascript:alert(1))</p>\n',
  )
  assert.equal(
    markdownInline('see [docs](https://example.com/a?b=1&c=2)'),
    'see <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">docs</a>',
  )
  assert.equal(
    markdownInline('<mailto:sam@example.com>'),
    '<a href="mailto:sam@example.com" rel="nofollow noopener noreferrer">mailto:sam@example.com</a>',
  )
})

test('bare addresses become links; relative and other-scheme links stay text', () => {
  assert.match(markdownInline('at https://example.com/x now'), /<a href="https:\/\/example.com\/x"/)
  assert.equal(markdownInline('[home](/web/1)'), '[home](/web/1)')
  assert.equal(markdownInline('[f](ftp://example.com)'), '[f](ftp://example.com)')
})

test('images are not loaded: an image becomes a link named by its text', () => {
  assert.equal(
    markdownToHtml('![pixel](https://tracker.example/p.gif)'),
    '<p><a href="https://tracker.example/p.gif" rel="nofollow noopener noreferrer">pixel</a></p>\n',
  )
  assert.equal(markdownToHtml('![x](javascript:alert(1))'), '<p>![x](javascript:alert(1))</p>\n')
})

test('a summary renders emphasis, lists, code and quotes', () => {
  assert.equal(markdownToHtml('**boom**'), '<p><strong>boom</strong></p>\n')
  assert.equal(markdownToHtml('- one\n- two'), '<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n')
  assert.equal(markdownToHtml('```\na < b\n```'), '<pre><code>a &lt; b\n</code></pre>\n')
  assert.equal(markdownToHtml('> quoted'), '<blockquote>\n<p>quoted</p>\n</blockquote>\n')
})

test('a subject keeps block syntax as text and renders inline marks', () => {
  assert.equal(markdownInline('# not a heading'), '# not a heading')
  assert.equal(markdownInline('- not a list'), '- not a list')
  assert.equal(markdownInline('Fix `login` **now**'), 'Fix <code>login</code> <strong>now</strong>')
})

test('a subject in a list row keeps its marks but makes no link, so it can sit inside one', () => {
  assert.equal(
    markdownSubject('**boom** at https://example.com [x](https://e.example)'),
    '<strong>boom</strong> at https://example.com [x](https://e.example)',
  )
})

test('a plain subject renders exactly as the parser would render it', () => {
  for (const text of [
    'Fix the login page',
    'Ticket 12: crash "quoted" it\'s',
    'a  b',
    ' lead',
    'trail ',
    'x > y',
    'a # b',
    '1. not a list',
    'a\tb',
  ]) {
    assert.equal(markdownSubject(text), markdownSubject(text + '*').slice(0, -1), text)
  }
})

test('task list items render as checkboxes that only show, ticked for [x]', () => {
  const out = markdownToHtml(
    '- [ ] write the copy\n- [x] pick the font\n- plain item\n- [link](https://example.com) [ ] not a task',
  )
  assert.match(
    out,
    /<li class="task"><input type="checkbox" disabled aria-label="not done"> write the copy<\/li>/,
  )
  assert.match(
    out,
    /<li class="task"><input type="checkbox" disabled checked aria-label="done"> pick the font<\/li>/,
  )
  assert.match(out, /<li>plain item<\/li>/)
  assert.equal((out.match(/<input/g) ?? []).length, 2)
  // In a subject (one line) nothing becomes a checkbox.
  assert.doesNotMatch(markdownInline('[ ] not a box'), /<input/)
})

test('a single line break inside a paragraph is kept, as GitHub keeps it in comments; a blank line still starts a paragraph', () => {
  assert.equal(
    markdownToHtml('Steps:\nopen the page\npress Save'),
    '<p>Steps:<br>\nopen the page<br>\npress Save</p>\n',
  )
  assert.equal(markdownToHtml('one\n\ntwo'), '<p>one</p>\n<p>two</p>\n')
  assert.equal(markdownToHtml('- a\n  still a'), '<ul>\n<li>a<br>\nstill a</li>\n</ul>\n')
})

test('a subject, one line, has no line break to keep', () => {
  assert.equal(markdownSubject('one\ntwo'), 'one\ntwo')
})

test("an image of this tracker's own files is shown inline, linking to itself full size", () => {
  const out = markdownToHtml('![screen shot.png](/files/AbCdEfGhIjKlMnOpQrStUv/screen%20shot.png)')
  assert.equal(
    out,
    '<p><a href="/files/AbCdEfGhIjKlMnOpQrStUv/screen%20shot.png" class="image-link"><img src="/files/AbCdEfGhIjKlMnOpQrStUv/screen%20shot.png" alt="screen shot.png" loading="lazy"></a></p>\n',
  )
})

test("a link to one of this tracker's files is a link, and images from elsewhere stay links", () => {
  assert.equal(
    markdownToHtml('[log.txt (1.2 MB)](/files/AbCdEfGhIjKlMnOpQrStUv/log.txt)'),
    '<p><a href="/files/AbCdEfGhIjKlMnOpQrStUv/log.txt" rel="nofollow noopener noreferrer">log.txt (1.2 MB)</a></p>\n',
  )
  assert.doesNotMatch(markdownToHtml('![pixel](https://tracker.example/p.gif)'), /<img/)
  // Not one of ours: another path, a short id, or a path that climbs out.
  for (const src of [
    '/avatar.png',
    '/files/short/x.png',
    '//evil.example/files/AbCdEfGhIjKlMnOpQrStUv/x.png',
    '/files/AbCdEfGhIjKlMnOpQrStUv/../x.png',
    '/files/AbCdEfGhIjKlMnOpQrStUv/..',
  ]) {
    assert.doesNotMatch(markdownToHtml(`![x](${src})`), /<img/, src)
  }
  // A quote in the address is percent-encoded: it cannot end the attribute.
  assert.doesNotMatch(
    markdownToHtml('![x](/files/AbCdEfGhIjKlMnOpQrStUv/x.png"onerror="alert(1))'),
    /"onerror/,
  )
})
