/**
 * A note read as Markdown (src/notes/app/markdown.ts): safe HTML from any text, task boxes that
 * name their line, and ticking one as an edit of exactly that `[ ]`.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { noteHtml, toggleTask } from '../../../src/notes/app/markdown.ts'

test('raw HTML, script and event attributes stay text', () => {
  const html = noteHtml(
    '<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n<a href="javascript:alert(1)">x</a>',
  )
  assert.doesNotMatch(html, /<script|<img|<a /)
  assert.match(html, /&lt;script&gt;/)
})

test('no remote image loads: an image becomes a link to it, and links go only to http, https and mailto', () => {
  const html = noteHtml(
    '![a cat](https://tracker.example/pixel.png) ![x](data:image/png;base64,AAAA)\n[go](javascript:alert(1)) [mail](mailto:a@b.org) [web](https://e.org)',
  )
  assert.doesNotMatch(html, /<img/)
  assert.match(
    html,
    /<a href="https:\/\/tracker\.example\/pixel\.png" rel="nofollow noopener noreferrer" target="_blank">a cat<\/a>/,
  )
  assert.doesNotMatch(html, /href="data:|href="javascript:/)
  assert.match(html, /<a href="mailto:a@b\.org"/)
  assert.match(
    html,
    /<a href="https:\/\/e\.org" rel="nofollow noopener noreferrer" target="_blank">web<\/a>/,
  )
})

test('headings, emphasis, code and line breaks as written', () => {
  assert.equal(
    noteHtml('# Title\nline one\nline *two*\n\n`code`'),
    '<h1>Title</h1>\n<p>line one<br>\nline <em>two</em></p>\n<p><code>code</code></p>\n',
  )
})

test('a task list item shows a checkbox that names its line and is labelled by its words', () => {
  const html = noteHtml(
    'Errands\n\n- [ ] call Ana\n- [x] buy **milk**\n- not a task\n  - [ ] nested',
  )
  assert.match(
    html,
    /<li class="task"><input type="checkbox" class="task-box" data-line="2" aria-labelledby="task-2"> <span id="task-2">call Ana<\/span>/,
  )
  assert.match(
    html,
    /data-line="3" aria-labelledby="task-3" checked> <span id="task-3">buy <strong>milk<\/strong><\/span>/,
  )
  assert.match(html, /data-line="5" aria-labelledby="task-5">/)
  assert.equal(html.match(/type="checkbox"/g)?.length, 3)
})

test('ticking a box edits only the [ ] of its line, and a line that is no task any more is left alone', () => {
  const text =
    'Errands\r\n\r\n- [ ] call Ana\r\n* [x] milk [ ] not this\r\n1. [ ] first\r\n> - [ ] quoted\r\nplain [ ] line'
  assert.equal(
    toggleTask(text, 2, true),
    'Errands\r\n\r\n- [x] call Ana\r\n* [x] milk [ ] not this\r\n1. [ ] first\r\n> - [ ] quoted\r\nplain [ ] line',
  )
  assert.equal(
    toggleTask(text, 3, false),
    'Errands\r\n\r\n- [ ] call Ana\r\n* [ ] milk [ ] not this\r\n1. [ ] first\r\n> - [ ] quoted\r\nplain [ ] line',
  )
  assert.equal(toggleTask(text, 4, true)?.includes('1. [x] first'), true)
  assert.equal(toggleTask(text, 5, true)?.includes('> - [x] quoted'), true)
  assert.equal(toggleTask(text, 6, true), null)
  assert.equal(toggleTask(text, 60, true), null)
})
