import assert from 'node:assert/strict'
import { test } from 'node:test'
import { combined, lineParts, shownParts } from '../../../src/notes/app/diff-view.ts'
import { deviceName, versionDevice, versionTimes } from '../../../src/notes/app/versions.ts'

const ALL = new Set(['same', 'added', 'removed'] as const)

test('a line appended after a last line without a line end is the only change, and no two lines run together', () => {
  const parts = lineParts('milk\nbutter', 'milk\nbutter\neggs')
  assert.deepEqual(
    parts.filter((p) => p.kind !== 'same'),
    [{ kind: 'added', text: 'eggs' }],
  )
  assert.equal(
    shownParts(parts, ALL)
      .map((p) => p.text)
      .join(''),
    'milk\nbutter\neggs',
  )
})

test('a changed last line without a line end is drawn struck through on its own line, then the new line', () => {
  const shown = shownParts(lineParts('milk\nbutter', 'milk\nbread'), ALL)
  assert.deepEqual(shown, [
    { kind: 'same', text: 'milk\n' },
    { kind: 'removed', text: 'butter\n' },
    { kind: 'added', text: 'bread' },
  ])
  assert.equal(combined('milk\nbutter', 'milk\nbutter\neggs'), 'milk\nbutter\neggs')
})

test('versions saved in the same minute show their seconds; a version alone in its minute does not', () => {
  const base = Date.UTC(2026, 10, 27, 15, 4, 0)
  const times = versionTimes([base + 41_000, base + 12_000, base - 3_600_000], {
    locale: 'en-US',
    timeZone: 'UTC',
  })
  assert.deepEqual(times, [
    'Nov 27, 2026, 3:04:41 PM',
    'Nov 27, 2026, 3:04:12 PM',
    'Nov 27, 2026, 2:04 PM',
  ])
})

test('each version names the device that wrote it', () => {
  assert.equal(
    versionDevice({ edited: 1, local: 'me', device: 'Chrome on Linux' }, 'me'),
    'this device',
  )
  assert.equal(
    versionDevice({ edited: 1, local: 'phone', device: 'Chrome on Android' }, 'me'),
    'Chrome on Android',
  )
  assert.equal(versionDevice({ edited: 1, local: 'old', device: null }, 'me'), 'another device')
})

test("a device's words for itself come from its browser and system", () => {
  const cases: [string, string][] = [
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari on iPhone',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge on Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari on Mac',
    ],
    ['curl/8.0', 'a browser'],
  ]
  for (const [ua, name] of cases) assert.equal(deviceName(ua), name, ua)
})
