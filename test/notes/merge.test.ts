import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mergeText, splitLines } from '../../src/notes/merge.ts'

/** Merges and checks the outcome: the merged text, or null for a collision. */
function check(base: string, stored: string, sent: string, want: string | null): void {
  const got = mergeText(base, stored, sent)
  assert.deepEqual(
    got,
    want === null ? { ok: false } : { ok: true, text: want },
    JSON.stringify({ base, stored, sent }),
  )
}

const cases: { name: string; base: string; stored: string; sent: string; want: string | null }[] = [
  // Edits in different lines.
  {
    name: 'edits in lines far apart merge',
    base: 'a\nb\nc\nd\ne\n',
    stored: 'A\nb\nc\nd\ne\n',
    sent: 'a\nb\nc\nd\nE\n',
    want: 'A\nb\nc\nd\nE\n',
  },
  {
    name: 'edits in neighbouring lines merge (two list items ticked on two devices)',
    base: '- [ ] milk\n- [ ] eggs\n',
    stored: '- [x] milk\n- [ ] eggs\n',
    sent: '- [ ] milk\n- [x] eggs\n',
    want: '- [x] milk\n- [x] eggs\n',
  },
  {
    name: 'an edit on one side and an unchanged other side takes the edit',
    base: 'a\nb\n',
    stored: 'a\nb\n',
    sent: 'a\nB\n',
    want: 'a\nB\n',
  },
  {
    name: 'an unchanged sent text keeps the stored edit',
    base: 'a\nb\n',
    stored: 'a\nB\n',
    sent: 'a\nb\n',
    want: 'a\nB\n',
  },
  // Edits in the same line.
  {
    name: 'different edits of the same line collide',
    base: 'a\nb\nc\n',
    stored: 'a\nB1\nc\n',
    sent: 'a\nB2\nc\n',
    want: null,
  },
  {
    name: 'the same edit of the same line on both sides merges into one',
    base: 'a\nb\nc\n',
    stored: 'a\nB\nc\n',
    sent: 'a\nB\nc\n',
    want: 'a\nB\nc\n',
  },
  {
    name: 'edits whose line ranges overlap collide',
    base: 'a\nb\nc\nd\n',
    stored: 'a\nX\nY\nd\n',
    sent: 'a\nb\nZ\nW\n',
    want: null,
  },
  // Insertions at the same place.
  {
    name: 'two insertions at the same place keep both, stored first',
    base: 'a\nb\n',
    stored: 'a\nfrom phone\nb\n',
    sent: 'a\nfrom laptop\nb\n',
    want: 'a\nfrom phone\nfrom laptop\nb\n',
  },
  {
    name: 'two appends at the end keep both',
    base: 'list\n',
    stored: 'list\nmilk\n',
    sent: 'list\nbread\n',
    want: 'list\nmilk\nbread\n',
  },
  {
    name: 'insertions sharing lines keep the shared lines once',
    base: 'a\n',
    stored: 'a\nmilk\n',
    sent: 'a\nmilk\neggs\n',
    want: 'a\nmilk\neggs\n',
  },
  {
    name: 'identical insertions at the same place appear once',
    base: 'a\nb\n',
    stored: 'a\nx\nb\n',
    sent: 'a\nx\nb\n',
    want: 'a\nx\nb\n',
  },
  {
    name: 'insertions at different places merge',
    base: 'a\nb\nc\n',
    stored: 'x\na\nb\nc\n',
    sent: 'a\nb\nc\ny\n',
    want: 'x\na\nb\nc\ny\n',
  },
  {
    name: 'an insertion before a line the other side edits merges',
    base: 'a\nb\n',
    stored: 'a\nnew\nb\n',
    sent: 'a\nB\n',
    want: 'a\nnew\nB\n',
  },
  {
    name: 'an insertion after a line the other side edits merges',
    base: 'a\nb\n',
    stored: 'A\nb\n',
    sent: 'a\nnew\nb\n',
    want: 'A\nnew\nb\n',
  },
  {
    name: 'an insertion inside lines the other side replaced collides',
    base: 'a\nb\nc\n',
    stored: 'a\nb\nnew\nc\n',
    sent: 'a\nX\n',
    want: null,
  },
  // Deletions against edits.
  {
    name: 'deleting a line the other side edited collides',
    base: 'a\nb\nc\n',
    stored: 'a\nc\n',
    sent: 'a\nB\nc\n',
    want: null,
  },
  {
    name: 'deleting one line and editing another merges',
    base: 'a\nb\nc\n',
    stored: 'b\nc\n',
    sent: 'a\nb\nC\n',
    want: 'b\nC\n',
  },
  {
    name: 'deleting neighbouring lines on both sides merges',
    base: 'a\nb\nc\nd\n',
    stored: 'a\nc\nd\n',
    sent: 'a\nb\nd\n',
    want: 'a\nd\n',
  },
  {
    name: 'the same deletion on both sides merges',
    base: 'a\nb\nc\n',
    stored: 'a\nc\n',
    sent: 'a\nc\n',
    want: 'a\nc\n',
  },
  {
    name: 'emptying the note against an edit collides',
    base: 'a\nb\n',
    stored: '',
    sent: 'a\nB\n',
    want: null,
  },
  // Empty texts.
  {
    name: 'an empty base with different texts on both sides keeps both',
    base: '',
    stored: 'phone\n',
    sent: 'laptop\n',
    want: 'phone\nlaptop\n',
  },
  {
    name: 'all three texts empty merge to the empty text',
    base: '',
    stored: '',
    sent: '',
    want: '',
  },
  {
    name: 'a sent empty text from an empty base keeps the stored text',
    base: '',
    stored: 'a\n',
    sent: '',
    want: 'a\n',
  },
  {
    name: 'emptying the note on one side with no other change empties it',
    base: 'a\nb\n',
    stored: 'a\nb\n',
    sent: '',
    want: '',
  },
  // Texts without a final newline.
  {
    name: 'an edit of a last line without a newline merges with an edit above',
    base: 'a\nb\nc',
    stored: 'A\nb\nc',
    sent: 'a\nb\nC',
    want: 'A\nb\nC',
  },
  {
    name: 'adding a final newline on one side and an edit above merge',
    base: 'a\nb\nc',
    stored: 'a\nb\nc\n',
    sent: 'A\nb\nc',
    want: 'A\nb\nc\n',
  },
  {
    name: 'an append to a text without a final newline merges with an edit above',
    base: 'a\nb',
    stored: 'A\nb',
    sent: 'a\nb\nc',
    want: 'A\nb\nc',
  },
  {
    name: 'one-line texts without a newline edited on both sides collide',
    base: 'a',
    stored: 'b',
    sent: 'c',
    want: null,
  },
  // CRLF line ends.
  {
    name: 'CRLF lines merge and keep their CRLF',
    base: 'a\r\nb\r\nc\r\n',
    stored: 'A\r\nb\r\nc\r\n',
    sent: 'a\r\nb\r\nC\r\n',
    want: 'A\r\nb\r\nC\r\n',
  },
  {
    name: 'mixed line ends are each kept as they are',
    base: 'a\r\nb\nc\r\nd',
    stored: 'a\r\nB\nc\r\nd',
    sent: 'a\r\nb\nc\r\nD',
    want: 'a\r\nB\nc\r\nD',
  },
  {
    name: 'an inserted LF line in a CRLF text keeps its LF',
    base: 'a\r\nb\r\n',
    stored: 'a\r\nb\r\nc\n',
    sent: 'A\r\nb\r\n',
    want: 'A\r\nb\r\nc\n',
  },
  {
    name: 'changing only a line end is an edit of that line',
    base: 'a\r\nb\r\n',
    stored: 'a\nb\r\n',
    sent: 'a\r\nB\r\n',
    want: 'a\nB\r\n',
  },
  {
    name: 'changing the same line end differently on the two sides collides',
    base: 'a\r\nb\r\n',
    stored: 'a\nb\r\n',
    sent: 'A\r\nb\r\n',
    want: null,
  },
  // Lines that look like Object.prototype members.
  {
    name: 'lines named like prototype members merge as plain text',
    base: 'constructor\n__proto__\ntoString\n',
    stored: 'constructor!\n__proto__\ntoString\n',
    sent: 'constructor\n__proto__\ntoString!\n',
    want: 'constructor!\n__proto__\ntoString!\n',
  },
]

for (const c of cases) {
  test(`mergeText: ${c.name}`, () => check(c.base, c.stored, c.sent, c.want))
}

test('mergeText never loses a line end: every merged line comes from one of the three texts as it was', () => {
  const base = 'one\r\ntwo\nthree\r\nfour'
  const stored = 'ONE\r\ntwo\nthree\r\nfour'
  const sent = 'one\r\ntwo\nthree\r\nfour\nfive\r\n'
  const merged = mergeText(base, stored, sent)
  assert.deepEqual(merged, { ok: true, text: 'ONE\r\ntwo\nthree\r\nfour\nfive\r\n' })
})

test('mergeText answers a collision instead of running for seconds on thousands of repeated lines', () => {
  const base = '\n'.repeat(4000)
  const stored = 'first\n' + '\n'.repeat(3998) + 'last\n'
  const sent = base + 'appended\n'
  // Without the work budget these texts merge, after over a minute of LCS.
  assert.deepEqual(mergeText(base, stored, sent), { ok: false })
})

test('splitLines keeps each line end and gives no lines for an empty text', () => {
  assert.deepEqual(splitLines(''), [])
  assert.deepEqual(splitLines('a'), ['a'])
  assert.deepEqual(splitLines('a\n'), ['a\n'])
  assert.deepEqual(splitLines('a\r\nb\nc'), ['a\r\n', 'b\n', 'c'])
  assert.deepEqual(splitLines('\n\n'), ['\n', '\n'])
})
