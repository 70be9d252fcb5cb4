import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eventSentence, eventWords } from '../../src/tickets/text/history-words.ts'
import type { TicketEvent } from '../../src/tickets/rules/ticket-event.ts'

const base = { id: 1, by: 'alice', user: 'u1', app: null, created: 0 }
const ev = (fields: Partial<TicketEvent> & { kind: TicketEvent['kind'] }): TicketEvent => ({
  ...base,
  ...fields,
})
const bob = { id: 'u2', name: 'bob' }
const carol = { id: 'u3', name: 'carol' }
const web1 = { id: 'x', ref: 'web#1' }

test('every kind of event reads as a sentence after the actor name', () => {
  const cases: [TicketEvent, string][] = [
    [ev({ kind: 'comment', text: 'hi' }), 'commented'],
    [ev({ kind: 'state', from: 'open', to: 'doing' }), 'changed the state from open to doing'],
    [ev({ kind: 'assign', from: null, to: bob }), 'assigned bob'],
    [ev({ kind: 'assign', from: bob, to: null }), 'unassigned bob'],
    [ev({ kind: 'assign', from: bob, to: carol }), 'reassigned from bob to carol'],
    [ev({ kind: 'edit', subject: { from: 'a', to: 'b' } }), 'edited subject'],
    [
      ev({ kind: 'edit', subject: { from: 'a', to: 'b' }, summary: { from: '', to: 'c' } }),
      'edited subject and summary',
    ],
    [
      ev({ kind: 'link', relation: 'parent', action: 'set', ticket: web1 }),
      'set the parent to web#1',
    ],
    [
      ev({ kind: 'link', relation: 'parent', action: 'removed', ticket: web1 }),
      'removed the parent web#1',
    ],
    [
      ev({ kind: 'link', relation: 'blocked-by', action: 'added', ticket: web1 }),
      'marked it blocked by web#1',
    ],
    [
      ev({ kind: 'link', relation: 'blocked-by', action: 'removed', ticket: web1 }),
      'removed blocker web#1',
    ],
  ]
  for (const [event, sentence] of cases) assert.equal(eventSentence(event), sentence)
})

test('a link event names the other ticket apart, so a page can link it', () => {
  assert.deepEqual(
    eventWords(ev({ kind: 'link', relation: 'parent', action: 'set', ticket: web1 })),
    { words: 'set the parent to', ref: 'web#1' },
  )
  assert.deepEqual(eventWords(ev({ kind: 'comment', text: 'x' })), {
    words: 'commented',
    ref: null,
  })
})

test('a name with a newline in it stays on one line', () => {
  assert.equal(
    eventSentence(ev({ kind: 'assign', from: null, to: { id: 'u9', name: 'mal\nlory' } })),
    'assigned mal lory',
  )
})
