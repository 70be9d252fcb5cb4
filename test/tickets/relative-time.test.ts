import assert from 'node:assert/strict'
import { test } from 'node:test'
import { exactTime, isoTime, relativeTime } from '../../src/tickets/app/relative-time.ts'

const now = Date.UTC(2026, 10, 24, 12, 0, 0)
const MIN = 60_000

test('relativeTime() says recent times in minutes, hours and days', () => {
  const cases: [number, string][] = [
    [now, 'just now'],
    [now - 59_000, 'just now'],
    [now - MIN, '1 minute ago'],
    [now - 5 * MIN, '5 minutes ago'],
    [now - 59 * MIN, '59 minutes ago'],
    [now - 60 * MIN, '1 hour ago'],
    [now - 23 * 60 * MIN, '23 hours ago'],
    [now - 24 * 60 * MIN, 'yesterday'],
    [now - 3 * 24 * 60 * MIN, '3 days ago'],
    [now - 29 * 24 * 60 * MIN, '29 days ago'],
  ]
  for (const [then, words] of cases)
    assert.equal(relativeTime(then, now), words, `${(now - then) / MIN} minutes`)
})

test('relativeTime() says older times as a date, with the year when it is another year', () => {
  assert.equal(relativeTime(Date.UTC(2026, 2, 3, 8), now), 'on 3 Mar')
  assert.equal(relativeTime(Date.UTC(2025, 11, 31, 23), now), 'on 31 Dec 2025')
})

test('relativeTime() says a time a little ahead (a clock skew) as just now, further ahead as in …', () => {
  assert.equal(relativeTime(now + 30_000, now), 'just now')
  assert.equal(relativeTime(now + 5 * MIN, now), 'in 5 minutes')
  assert.equal(relativeTime(now + 3 * 60 * MIN, now), 'in 3 hours')
})

test('exactTime() gives the day, month, year and UTC time to the minute', () => {
  assert.equal(exactTime(Date.UTC(2026, 10, 4, 9, 5, 59)), '4 Nov 2026, 09:05 UTC')
})

test('dates follow the UTC calendar: a leap day, the last minute of a year, before 1970', () => {
  assert.equal(exactTime(Date.UTC(2024, 1, 29, 9, 5)), '29 Feb 2024, 09:05 UTC')
  assert.equal(exactTime(Date.UTC(1999, 11, 31, 23, 59, 59, 999)), '31 Dec 1999, 23:59 UTC')
  assert.equal(exactTime(-1), '31 Dec 1969, 23:59 UTC')
  assert.equal(relativeTime(Date.UTC(2024, 1, 29, 23), now), 'on 29 Feb 2024')
  assert.equal(isoTime(Date.UTC(2024, 1, 29, 23, 59, 59, 999)), '2024-02-29T23:59:59.999Z')
})
