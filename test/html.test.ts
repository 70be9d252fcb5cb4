import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  escapeHtml,
  html,
  htmlDocument,
  htmlPage,
  htmlResponse,
  joinHtml,
  rawHtml,
  type Html,
} from '../src/http/html.ts'

const render = (h: Html) => h.text

test('escapeHtml escapes the five characters that matter in HTML', () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
  )
})

test('html escapes every interpolated string, in content and in quoted attributes', () => {
  const name = `<script>alert("x")</script>`
  const link = `/p?a=1&b="2"`
  assert.equal(
    render(html`<a href="${link}" title='${name}'>${name}</a>`),
    `<a href="/p?a=1&amp;b=&quot;2&quot;" title='&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</a>`,
  )
})

test('html keeps what html made as it is, so templates nest without double escaping', () => {
  const item = html`<li>${'a & b'}</li>`
  assert.equal(render(html`<ul>${item}</ul>`), '<ul><li>a &amp; b</li></ul>')
})

test('html renders numbers as text and arrays item by item', () => {
  const items = ['x<', 'y'].map((s, i) => html`<li data-i="${i}">${s}</li>`)
  assert.equal(
    render(html`<ol>${items}</ol>`),
    '<ol><li data-i="0">x&lt;</li><li data-i="1">y</li></ol>',
  )
  assert.equal(render(html`${['<', html`<br>`, 3]}`), '&lt;<br>3')
})

test('html renders nothing for null, undefined, false and an empty string, so conditionals read plainly', () => {
  const admin = false
  const note: string | null = null
  assert.equal(
    render(
      html`<p>${admin && html`<b>admin</b>`}${note}${undefined}${''}${admin ? html`x` : ''}</p>`,
    ),
    '<p></p>',
  )
  const checked: boolean = true
  assert.equal(render(html`<input${checked ? html` checked` : ''}>`), '<input checked>')
})

test('html refuses an interpolation in an unquoted attribute value', () => {
  assert.throws(() => html`<input value=${'x onfocus=alert(1)'}>`, /quote the attribute value/)
  assert.throws(() => html`<a href= ${'/x'}>`, /quote the attribute value/)
})

test('html takes only rawHtml inside script and style elements', () => {
  assert.throws(
    () => html`<script>const x = ${'1'}</script>`,
    /only rawHtml may go inside <script>/,
  )
  assert.throws(
    () => html`<style>p { color: ${'red'} }</style>`,
    /only rawHtml may go inside <script>/,
  )
  assert.equal(
    render(html`<script>${rawHtml('if (a < b) go()')}</script><p>${'<'}</p>`),
    '<script>if (a < b) go()</script><p>&lt;</p>',
  )
  // An attribute of the opening tag is an attribute like any other: quoted and escaped.
  assert.equal(
    render(html`<script type="module" src="${'/a.js?x="1"'}"></script>`),
    '<script type="module" src="/a.js?x=&quot;1&quot;"></script>',
  )
  assert.throws(
    () => html`<script src="/a.js">${'x'}</script>`,
    /only rawHtml may go inside <script>/,
  )
})

test('html refuses values it cannot render instead of printing [object Object]', () => {
  assert.throws(() => html`<p>${{} as unknown as string}</p>`, /cannot render object/)
})

test('joinHtml puts a separator between rendered values', () => {
  assert.equal(render(joinHtml([html`<li>a</li>`, 'b&', null], '\n')), '<li>a</li>\nb&amp;\n')
  assert.equal(render(joinHtml([], ', ')), '')
})

test('htmlDocument escapes the title and htmlResponse answers it as text/html', () => {
  const res = htmlResponse(201, htmlDocument('A <b>', html`<p>hi</p>`), {
    'cache-control': 'no-store',
  })
  assert.equal(res.status, 201)
  assert.equal(res.headers?.['content-type'], 'text/html; charset=utf-8')
  assert.equal(res.headers?.['cache-control'], 'no-store')
  assert.match(String(res.body), /<title>A &lt;b&gt;<\/title>/)
  assert.match(String(res.body), /<h1>A &lt;b&gt;<\/h1>\n<p>hi<\/p>/)
  assert.match(String(res.body), /^<!doctype html>\n<html lang="en">/)
})

test('htmlPage is the one document of every page: language, charset, viewport, escaped title, head and body class', () => {
  const page = htmlPage(
    {
      title: 'A <b> & "c"',
      head: html`<link rel="stylesheet" href="/s.css">`,
      bodyClass: 'connect',
      coverViewport: true,
    },
    html`<main>hi</main>`,
  ).text
  assert.match(page, /^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n/)
  assert.ok(
    page.includes(
      '<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">',
    ),
    page,
  )
  assert.ok(
    page.includes(
      '<title>A &lt;b&gt; &amp; &quot;c&quot;</title>\n<link rel="stylesheet" href="/s.css">\n</head>\n<body class="connect">\n<main>hi</main>\n</body>\n</html>\n',
    ),
    page,
  )
  const plain = htmlPage({ title: 'T' }, html`x`).text
  assert.ok(plain.includes('<title>T</title>\n</head>\n<body>\nx\n</body>'), plain)
})
