import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  excerptOf,
  matchedRanges,
  matches,
  parseQuery,
  pieces,
  rankOf,
  search,
  tagSearched,
} from '../../../src/notes/app/search.ts'
import { tagsOf } from '../../../src/notes/app/tags.ts'

const note = (text: string) => ({
  text,
  lower: text.toLowerCase(),
  titleLower: text.split('\n')[0]!.trim().toLowerCase(),
  tags: tagsOf(text),
})

function found(typed: string, texts: string[]): string[] {
  return search(texts.map(note), parseQuery(typed)!).map((n) => n.text)
}

test('each word typed must begin a word of the note: "Errand 5" no longer finds "Errand 15"', () => {
  assert.deepEqual(found('Errand 5', ['Errand 15', 'Errand 5', 'errands 52', 'Errand']), [
    'Errand 5',
    'errands 52',
  ])
  assert.deepEqual(found('milk', ['Groceries\noat milk', 'Buttermilk pancakes']), [
    'Groceries\noat milk',
  ])
  assert.deepEqual(found('lis', ['Trip to Lisbon', 'Reading list', 'Analysis']), [
    'Trip to Lisbon',
    'Reading list',
  ])
})

test('words may come in any order and case, and punctuation starts a word', () => {
  const q = parseQuery('  BOB   report ')!
  assert.equal(q.text, 'bob report')
  assert.equal(matches(q, 'weekly report for bob'), true)
  assert.equal(matches(parseQuery('mail')!, 'send the e-mail'), true)
  assert.equal(matches(parseQuery('q3/q4')!, 'report: q3/q4 draft'), true)
  assert.equal(
    matches(parseQuery('(a+b)*')!, 'x (a+b)* y'),
    true,
    'regular-expression characters are plain text',
  )
  assert.equal(parseQuery('   '), null)
})

test('a note whose title is exactly the search comes first, then titles with every word, then the rest, each newest first', () => {
  const list = [
    'Notes on the meeting\nerrand 5',
    'Errand 5 and more',
    'Errand 5',
    'Old\nErrand 5',
    'errand   5',
  ]
  assert.deepEqual(found('errand 5', list), [
    'Errand 5',
    'errand   5',
    'Errand 5 and more',
    'Notes on the meeting\nerrand 5',
    'Old\nErrand 5',
  ])
  assert.equal(rankOf(parseQuery('Errand 5')!, 'errand 5'), 0)
  assert.equal(rankOf(parseQuery('5 errand')!, 'errand 5'), 1)
  assert.equal(rankOf(parseQuery('eggs')!, 'errand 5'), 2)
})

test('letters with accents and other scripts are words too', () => {
  assert.equal(matches(parseQuery('café')!, 'le café du coin'), true)
  assert.equal(matches(parseQuery('fé')!, 'le café du coin'), false)
  assert.equal(matches(parseQuery('東京')!, '旅行 東京'), true)
})

test('#word in the search finds the notes with that tag or one of its sub-tags, beside the other words', () => {
  const list = [
    'Plans #work/q3',
    'Meeting #Work',
    'Workshop #workshop',
    'Work without a tag',
    'Shopping #home #work',
  ]
  assert.deepEqual(found('#work', list), [
    'Plans #work/q3',
    'Meeting #Work',
    'Shopping #home #work',
  ])
  assert.deepEqual(found('#WORK/Q3', list), ['Plans #work/q3'])
  assert.deepEqual(found('#work shopping', list), ['Shopping #home #work'])
  assert.deepEqual(found('#work #home', list), ['Shopping #home #work'])
  assert.deepEqual(found('#nothing', list), [])
})

test('a # word that is no tag is searched as a word', () => {
  assert.deepEqual(found('#42', ['Bug #42', 'Bug 42']), ['Bug #42'])
})

test('a search of one tag alone is told apart, as the tag list shows it chosen', () => {
  assert.equal(tagSearched(' #Work/Plans '), 'work/plans')
  assert.equal(tagSearched('#work milk'), null)
  assert.equal(tagSearched('#a #b'), null)
  assert.equal(tagSearched('work'), null)
})

test('the matched words are found where they begin words of the text as written, whatever their case, overlaps joined', () => {
  const query = parseQuery('Milk mil 5')!
  assert.deepEqual(matchedRanges(query, 'Buy MILK and 5 kg of 15 milkweed'), [
    [4, 8],
    [13, 14],
    [24, 28],
  ])
})

test('a result’s excerpt starts at a word before the first match after the title and marks every matched word', () => {
  const text = `Shopping\n${'Some words before it all. '.repeat(3)}then buy milk\nand more milk later`
  const query = parseQuery('milk')!
  const parts = excerptOf(query, text, text.indexOf('\n') + 1)!
  assert.equal(parts[0]!.text, '…')
  assert.deepEqual(
    parts.filter((p) => p.mark).map((p) => p.text),
    ['milk', 'milk'],
  )
  const joined = parts.map((p) => p.text).join('')
  assert.match(joined, /^…all\. then buy milk and more milk later$/)
  assert.equal(excerptOf(parseQuery('shopping')!, text, text.indexOf('\n') + 1), null)
})

test('pieces keep markup-like text as text: the list draws them as text nodes', () => {
  assert.deepEqual(pieces('<b>milk</b>', [[3, 7]]), [
    { text: '<b>', mark: false },
    { text: 'milk', mark: true },
    { text: '</b>', mark: false },
  ])
})
