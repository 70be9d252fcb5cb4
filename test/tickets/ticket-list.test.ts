/**
 * The ticket rows of the lists (src/tickets/pages/frame.ts, ticketList): a row is kept between
 * requests, so every field it shows must change the row when it changes, and the time's words
 * must follow the clock.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ListRow } from '../../src/tickets/store/page-reads.ts'
import { ticketList } from '../../src/tickets/pages/frame.ts'

const MINUTE = 60_000
const updated = Date.UTC(2026, 10, 24, 9, 5)

function row(
  change: Partial<ListRow['ticket']> = {},
  blocked = false,
  labels: ListRow['labels'] = [],
): ListRow {
  return {
    ticket: {
      id: 't-row-1',
      ref: 'web#7',
      slug: 'web',
      number: 7,
      subject: 'Login fails on Safari',
      state: 'open',
      assignee: null,
      updated,
      milestone: null,
      due: null,
      ...change,
    },
    blocked,
    labels,
  }
}

const render = (r: ListRow, now = updated + 5 * MINUTE, options: { showProject?: boolean } = {}) =>
  ticketList([r], now, 'none', options).text

test('a row shows its ticket: link, subject, state, assignee, blocked marker and the time in words with the exact time', () => {
  const text = render(row())
  assert.match(text, /<a class="subject" href="\/web\/7">Login fails on Safari<\/a>/)
  assert.match(text, /<span class="state state-open">open<\/span>/)
  assert.match(text, /<span>unassigned<\/span>/)
  assert.doesNotMatch(text, /class="blocked"/)
  assert.match(
    text,
    /<time datetime="2026-11-24T09:05:00.000Z" title="24 Nov 2026, 09:05 UTC" data-relative>5 minutes ago<\/time>/,
  )
})

test('a row shown before changes with each field it shows', () => {
  render(row())
  assert.match(render(row({ state: 'review' })), /state-review">review</)
  assert.match(render(row({ subject: 'Login fails on Firefox' })), />Login fails on Firefox</)
  assert.match(
    render(row({ assignee: { id: 'u1', name: 'alice' } })),
    /<span>assigned to alice<\/span>/,
  )
  assert.match(render(row({}, true)), /<span class="blocked">blocked<\/span>/)
  assert.match(render(row({ slug: 'mobile', ref: 'mobile#7' })), /href="\/mobile\/7"/)
  assert.match(render(row({ number: 8, ref: 'web#8' })), /href="\/web\/8"/)
  assert.match(render(row({ updated: updated + MINUTE })), /datetime="2026-11-24T09:06:00.000Z"/)
  const withProject = render(row(), updated, { showProject: true })
  assert.match(withProject, /tabindex="-1">web#7<\/a>/)
  // The reference once per row (the inbox and search showed it twice).
  assert.equal(withProject.split('web#7').length - 1, 1)
  // And back: the first form again, not a later one kept.
  const again = render(row())
  assert.match(again, /state-open">open</)
  assert.match(again, /<span>unassigned<\/span>/)
  assert.match(again, /tabindex="-1">#7<\/a>/)
})

test('the time in words follows the clock while the row stays the same', () => {
  assert.match(render(row(), updated + 30_000), />just now<\/time>/)
  assert.match(render(row(), updated + 2 * 60 * MINUTE), />2 hours ago<\/time>/)
  assert.match(render(row(), updated + 3 * 24 * 60 * MINUTE), />3 days ago<\/time>/)
})

test('a kept row stays escaped: markup in a subject or a name makes no element', () => {
  const hostile = row({
    subject: '<script>alert(1)</script>',
    assignee: { id: 'u2', name: '"><svg onload=alert(1)>' },
  })
  for (let i = 0; i < 2; i++) {
    const text = render(hostile)
    assert.doesNotMatch(text, /<script|<svg/)
    assert.match(text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    assert.match(text, /assigned to &quot;&gt;&lt;svg onload=alert\(1\)&gt;/)
  }
})

test('a row shows its labels by name, its milestone and its due day, overdue in words', () => {
  const text = render(
    row({ milestone: 'v1.0', due: '2026-11-20' }, false, [
      { name: 'bug', color: '#d73a4a' },
      { name: 'needs review', color: '#0e8a16' },
    ]),
  )
  assert.match(text, /<span class="label-chip" data-color="#d73a4a">bug<\/span>/)
  assert.match(text, /<span class="label-chip" data-color="#0e8a16">needs review<\/span>/)
  assert.match(text, /<span class="milestone">v1\.0<\/span>/)
  assert.match(
    text,
    /due <time datetime="2026-11-20">2026-11-20<\/time> <strong class="overdue-word">overdue<\/strong>/,
  )
  const later = render(row({ due: '2026-11-24' }))
  assert.match(
    later,
    /due <time datetime="2026-11-24">2026-11-24<\/time><\/span>/,
    'due today is not overdue',
  )
  const closed = render(row({ due: '2026-11-20', state: 'done' }))
  assert.doesNotMatch(closed, /overdue/, 'a done ticket is not overdue')
})
