import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readTicketReference } from '../../src/tickets/rules/ticket-reference.ts'
import { pickerQuery } from '../../src/tickets/app/ticket-picker.ts'

const BASE = 'https://tickets.example'
const read = (text: string) => readTicketReference(text, 'web', BASE)

test("readTicketReference() reads numbers as this project, slugs in any case, and this service's addresses", () => {
  const cases: [string, ReturnType<typeof read>][] = [
    ['3', { kind: 'number', project: 'web', number: 3 }],
    [' #3 ', { kind: 'number', project: 'web', number: 3 }],
    ['web#3', { kind: 'number', project: 'web', number: 3 }],
    ['WEB-SITE#3', { kind: 'number', project: 'web-site', number: 3 }],
    ['other # 12', { kind: 'number', project: 'other', number: 12 }],
    [`${BASE}/docs/7`, { kind: 'number', project: 'docs', number: 7 }],
    [`${BASE}/docs/7/?x=1#history`, { kind: 'number', project: 'docs', number: 7 }],
    [`${BASE}/projects/docs/tickets/7`, { kind: 'number', project: 'docs', number: 7 }],
    [
      '6F1C2A3B-0000-4000-8000-00000000000A',
      { kind: 'id', id: '6f1c2a3b-0000-4000-8000-00000000000a' },
    ],
  ]
  for (const [text, want] of cases) assert.deepEqual(read(text), want, text)
})

test("readTicketReference() names no ticket for words, another site's address, a project page or a zero", () => {
  for (const text of [
    '',
    'login bug',
    'web#',
    'web#x',
    '#0',
    'https://elsewhere.example/web/3',
    `${BASE}/web`,
    `${BASE}/web/settings`,
    '99999999999',
    'a/b#1',
  ]) {
    assert.deepEqual(read(text), { kind: 'none' }, text)
  }
})

test('the picker searches numbers and words, and leaves a typed reference alone', () => {
  assert.equal(pickerQuery('3'), 'state:all #3')
  assert.equal(pickerQuery('#12'), 'state:all #12')
  assert.equal(pickerQuery('login loop'), 'state:all login loop')
  assert.equal(pickerQuery('state:"x'), 'state:all state  x')
  assert.equal(pickerQuery('web#3'), null)
  assert.equal(pickerQuery('https://tickets.example/web/3'), null)
  assert.equal(pickerQuery('  '), null)
})
