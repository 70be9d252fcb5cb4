import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  createAddress,
  noteHash,
  noteIdOf,
  type AddressWindow,
} from '../../../src/notes/app/address.ts'

/** A window with a history stack, as a browser keeps one (state survives a reload). */
function fakeWindow(start = '/') {
  const entries: { url: string; state: unknown }[] = [{ url: start, state: null }]
  let at = 0
  const win: AddressWindow & { entries: typeof entries; readonly at: number } = {
    entries,
    get at() {
      return at
    },
    location: {
      get hash() {
        const url = entries[at]!.url
        return url.includes('#') ? url.slice(url.indexOf('#')) : ''
      },
      pathname: '/',
      search: '',
    },
    history: {
      get state() {
        return entries[at]!.state
      },
      pushState(state, _unused, url) {
        entries.splice(at + 1, entries.length, { url, state: structuredClone(state) })
        at++
      },
      replaceState(state, _unused, url) {
        entries[at] = { url, state: structuredClone(state) }
      },
      back() {
        if (at > 0) at--
      },
    },
  }
  return win
}

test('a note id goes into the hash and comes back out, whatever characters it has', () => {
  for (const id of ['n1a2b3-abc', 'with space', 'a/b#c?d', 'ünï', 'constructor'])
    assert.equal(noteIdOf(noteHash(id)), id)
  assert.equal(noteIdOf(''), null)
  assert.equal(noteIdOf('#/'), null)
  assert.equal(noteIdOf('#top'), null)
  assert.equal(noteIdOf('#/%E0%A4%A'), null, 'a broken escape is no note')
})

test('opening a note from the list adds one history entry, and leaving it goes back to the list entry', () => {
  const win = fakeWindow()
  const address = createAddress(win)
  assert.equal(address.current(), null)
  address.show('a')
  assert.equal(address.current(), 'a')
  assert.equal(win.entries.length, 2)
  address.show(null)
  assert.equal(win.at, 0, 'went back rather than adding an entry')
  assert.equal(address.current(), null)
})

test('going from note to note replaces the entry, so back from any note is the list', () => {
  const win = fakeWindow()
  const address = createAddress(win)
  address.show('a')
  address.show('b')
  address.show('c')
  assert.deepEqual(
    win.entries.map((e) => e.url),
    ['/', '/#/c'],
  )
  win.history.back()
  assert.equal(address.current(), null)
})

test('a note opened straight from its address (a reload, a link) leaves to the list without leaving the app', () => {
  const win = fakeWindow('/#/a')
  const address = createAddress(win)
  assert.equal(address.current(), 'a')
  address.show(null)
  assert.deepEqual(
    win.entries.map((e) => e.url),
    ['/'],
  )
  assert.equal(address.current(), null)
})

test('a note opened from a link gets the list under it, so back goes to the list; a reload does not add it again', () => {
  const win = fakeWindow('/#/a')
  const address = createAddress(win)
  address.adopt()
  assert.deepEqual(
    win.entries.map((e) => e.url),
    ['/', '/#/a'],
  )
  assert.equal(address.current(), 'a')
  address.adopt()
  assert.equal(win.entries.length, 2, 'the entry already has the list under it')
  win.history.back()
  assert.equal(address.current(), null)
  const list = fakeWindow('/')
  createAddress(list).adopt()
  assert.equal(list.entries.length, 1, 'the list needs nothing')
})

test('showing what the address already says changes nothing', () => {
  const win = fakeWindow()
  const address = createAddress(win)
  address.show(null)
  address.show('a')
  address.show('a')
  assert.equal(win.entries.length, 2)
})
