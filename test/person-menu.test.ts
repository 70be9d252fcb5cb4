import assert from 'node:assert/strict'
import { test } from 'node:test'
import { menuLinks } from '../src/auth/person-menu.ts'

const places = {
  provider: 'https://id.example',
  notes: 'https://notes.example',
  tickets: 'https://tickets.example',
}
const labels = (links: { label: string }[]) => links.map((l) => l.label)

test('menuLinks() gives the owner Account, Admin and the other app, and others no Admin', () => {
  assert.deepEqual(menuLinks(places, true, 'notes'), [
    { label: 'Account', href: 'https://id.example/account' },
    { label: 'Admin', href: 'https://id.example/admin' },
    { label: 'Tickets', href: 'https://tickets.example/' },
  ])
  assert.deepEqual(labels(menuLinks(places, false, 'tickets')), ['Account', 'Notes'])
})

test("menuLinks() leaves out what does not exist: an outside provider's pages, a service not started", () => {
  assert.deepEqual(labels(menuLinks({ ...places, provider: null }, true, 'tickets')), ['Notes'])
  assert.deepEqual(labels(menuLinks({ ...places, notes: null }, false, 'tickets')), ['Account'])
  assert.deepEqual(menuLinks(undefined, true, 'notes'), [])
})
