/**
 * Tags in a note's text (src/notes/app/tags.ts): found in a fixture of tricky text, renamed
 * without touching code or addresses, and counted into the tag list's tree.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  hasTag,
  isTagName,
  renameTag,
  tagsOf,
  tagTree,
  type TagNode,
} from '../../../src/notes/app/tags.ts'

const tricky = readFileSync(new URL('../../fixtures/tags-tricky.md', import.meta.url), 'utf8')

test("the tags of a tricky text: not in code, addresses, link destinations or headings' leading #, in any script", () => {
  assert.deepEqual(tagsOf(tricky), [
    'work',
    'heading-without-space',
    'work/plans',
    'work/plans/q3',
    'home',
    'errand',
    'café',
    'idea',
    'list',
    'trailing',
    'linked',
    'open-code',
    'привет',
    '日本語',
    'ελληνικά',
    'हिन्दी',
    'naïve',
    'год/2024',
    'after',
    'indented',
    'under_score',
    'dash-ed',
    'x',
  ])
})

test('a tag is found at the start and end of the text, and case and composition make no second tag', () => {
  assert.deepEqual(tagsOf('#start middle #END'), ['start', 'end'])
  assert.deepEqual(tagsOf('#Café #cafe\u0301 #CAFÉ'), ['café'])
  assert.deepEqual(tagsOf('no tags at all'), [])
  assert.deepEqual(tagsOf('#\n#/x #-x #_x'), [])
  assert.deepEqual(tagsOf('#a/ is a, #b/c/ is b/c'), ['a', 'b/c'])
})

test('a text with \\r\\n line ends has the same tags, and a fence closes on its own line', () => {
  assert.deepEqual(tagsOf('one #a\r\n```\r\n#code\r\n```\r\n#b\r\n'), ['a', 'b'])
})

test("a tag and its sub-tags are found by the parent's name, not by a name it merely begins with", () => {
  assert.equal(hasTag(['work/plans'], 'work'), true)
  assert.equal(hasTag(['work'], 'work'), true)
  assert.equal(hasTag(['workshop'], 'work'), false)
  assert.equal(hasTag(['work'], 'work/plans'), false)
})

test('renaming a tag rewrites it and its sub-tags where they are written, and nothing else', () => {
  const text =
    '# Work #Work\n#work/plans and #WORK/x/y, #workshop, `#work` https://x.org/#work\n```\n#work\n```\n#work.'
  assert.equal(
    renameTag(text, 'work', 'job'),
    '# Work #job\n#job/plans and #job/x/y, #workshop, `#work` https://x.org/#work\n```\n#work\n```\n#job.',
  )
  assert.equal(renameTag('#a/b/c and #a/b and #a', 'a/b', 'z'), '#z/c and #z and #a')
  assert.equal(renameTag('#a/b', 'a', 'x/y'), '#x/y/b')
  assert.equal(renameTag('nothing here', 'a', 'b'), 'nothing here')
})

test('a tag name to rename to starts with a letter and has no spaces or empty parts', () => {
  for (const good of ['job', 'Job/2024', 'год', 'a-b_c']) assert.equal(isTagName(good), true, good)
  for (const bad of ['', '1st', 'two words', 'a//b', 'a/', '#a', '-a'])
    assert.equal(isTagName(bad), false, bad)
})

function flat(nodes: TagNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [
    `${'  '.repeat(depth)}${n.label} ${n.count}`,
    ...flat(n.children, depth + 1),
  ])
}

test('the tag tree counts each note once a tag, parents over their sub-tags, in alphabetical order', () => {
  const notes = [
    { tags: ['work/plans', 'work/plans/q3'] },
    { tags: ['work'] },
    { tags: ['home', 'Zebra'.toLowerCase()] },
    { tags: ['work/meetings', 'item10'] },
    { tags: ['item9'] },
    { tags: [] },
  ]
  assert.deepEqual(flat(tagTree(notes)), [
    'home 1',
    'item9 1',
    'item10 1',
    'work 3',
    '  meetings 1',
    '  plans 1',
    '    q3 1',
    'zebra 1',
  ])
})
