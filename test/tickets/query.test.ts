import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  emptyQuery,
  KEYS,
  needsMe,
  parseQuery,
  QUERY_MAX,
  SEARCH_HELP,
  TERMS_MAX,
  withSort,
  withState,
  type TicketQuery,
} from '../../src/tickets/rules/query.ts'

/** Parses `text` and compares the fields the case names against an otherwise empty query. */
function assertParses(text: string, fields: Partial<TicketQuery>): void {
  const parsed = parseQuery(text)
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.message}`)
  assert.deepEqual(parsed.query, { ...emptyQuery(), ...fields }, text)
}

function assertRefuses(text: string, error: string | RegExp): void {
  const parsed = parseQuery(text)
  assert.equal(parsed.ok, false, text)
  if (parsed.ok) return
  assert.equal(parsed.code, 'bad_query', text)
  assert.equal(parsed.field, 'q', text)
  if (typeof error === 'string') assert.equal(parsed.message, error)
  else assert.match(parsed.message, error)
}

test('the issue example: state, assignee, is:blocked and words', () => {
  assertParses('state:review assignee:alice is:blocked text words', {
    states: ['review'],
    assignee: { any: [{ kind: 'name', name: 'alice' }], not: [] },
    blocked: true,
    words: ['text', 'words'],
  })
})

test('an empty or blank search is the empty query', () => {
  assertParses('', {})
  assertParses('   \t ', {})
})

test('states: a comma list, repeated terms add up, all, and exclusions from every state', () => {
  assertParses('state:open,doing', { states: ['open', 'doing'] })
  assertParses('state:review state:OPEN', { states: ['open', 'review'] })
  assertParses('state:all', { states: ['open', 'doing', 'review', 'done', 'dropped'] })
  assertParses('-state:done', { states: ['open', 'doing', 'review', 'dropped'] })
  assertParses('state:all -state:dropped', { states: ['open', 'doing', 'review', 'done'] })
})

test('people: by name, quoted names with spaces, none and me, and exclusions', () => {
  assertParses('assignee:"Mary Ann"', {
    assignee: { any: [{ kind: 'name', name: 'Mary Ann' }], not: [] },
  })
  assertParses('assignee:none', { assignee: { any: [{ kind: 'none' }], not: [] } })
  assertParses('is:unassigned', { assignee: { any: [{ kind: 'none' }], not: [] } })
  assertParses('is:assigned', { assignee: { any: [], not: [{ kind: 'none' }] } })
  assertParses('-assignee:bob author:me', {
    assignee: { any: [], not: [{ kind: 'name', name: 'bob' }] },
    author: { any: [{ kind: 'me' }], not: [] },
  })
  assertParses('assignee:bob assignee:carol', {
    assignee: {
      any: [
        { kind: 'name', name: 'bob' },
        { kind: 'name', name: 'carol' },
      ],
      not: [],
    },
  })
})

test('is:blocked and its opposites', () => {
  assertParses('is:blocked', { blocked: true })
  assertParses('-is:blocked', { blocked: false })
  assertParses('is:unblocked', { blocked: false })
})

test('text: words, quoted phrases, excluded words and phrases, ticket numbers', () => {
  assertParses('login "loops forever" -safari -"works fine" #12', {
    words: ['login'],
    phrases: ['loops forever'],
    notWords: ['safari'],
    notPhrases: ['works fine'],
    numbers: [12],
  })
  assertParses('"unclosed phrase', { phrases: ['unclosed phrase'] })
  assertParses('"#12"', { phrases: ['#12'] })
  assertParses('a - b', { words: ['a', '-', 'b'] })
})

test('a colon after something that is not a key is text: times, addresses, quoted', () => {
  assertParses('10:30', { words: ['10:30'] })
  assertParses('https://example.com/a', { words: ['https://example.com/a'] })
  assertParses('"error: boom"', { phrases: ['error: boom'] })
})

test('sort: one of four orders, with short names', () => {
  assertParses('sort:updated', { sort: 'updated-desc' })
  assertParses('sort:created-asc', { sort: 'created-asc' })
  assertParses('SORT:Oldest', { sort: 'created-asc' })
})

test('what GitHub users type: is:open, is:closed, state:closed, @me and @name, negated', () => {
  assertParses('is:open', { states: ['open', 'doing', 'review'] })
  assertParses('is:closed', { states: ['done', 'dropped'] })
  assertParses('-is:open', { states: ['done', 'dropped'] })
  assertParses('state:closed', { states: ['done', 'dropped'] })
  assertParses('is:open state:review', { states: ['open', 'doing', 'review'] })
  assertParses('is:open -state:doing', { states: ['open', 'review'] })
  assertParses('assignee:@me', { assignee: { any: [{ kind: 'me' }], not: [] } })
  assertParses('author:@Bob -assignee:@me', {
    author: { any: [{ kind: 'name', name: 'Bob' }], not: [] },
    assignee: { any: [], not: [{ kind: 'me' }] },
  })
  assertParses('is:open "login loop" -safari', {
    states: ['open', 'doing', 'review'],
    phrases: ['login loop'],
    notWords: ['safari'],
  })
  assert.equal(needsMe((parseQuery('assignee:@me') as { query: TicketQuery }).query), true)
})

test('the help names every key and every is: value the parser accepts', () => {
  const help = SEARCH_HELP.map(([term]) => term).join(' ')
  for (const key of KEYS) assert.match(help, new RegExp(`\\b${key}:`), key)
  for (const value of ['open', 'closed', 'blocked', 'unblocked', 'assigned', 'unassigned'])
    assert.match(help, new RegExp(`is:${value}\\b`), value)
  for (const [term] of SEARCH_HELP)
    for (const example of term.split(', ')) assert.ok(parseQuery(example).ok, example)
})

test('refusals say what to type instead', () => {
  assertRefuses(
    'priority:high',
    "unknown search key 'priority:' (use state:, assignee:, author:, is:, label:, milestone:, due:, no:, has:, sort:); put text with a colon in double quotes",
  )
  assertRefuses(
    'state:shut',
    "unknown state 'shut' (use open, doing, review, done, dropped, closed or all)",
  )
  assertRefuses('state:', "'state:' needs a value, for example state:review")
  assertRefuses('assignee:""', "'assignee:' needs a value, for example assignee:alice")
  assertRefuses(
    'is:urgent',
    "unknown 'is:urgent' (use is:open, is:closed, is:blocked, is:unblocked, is:assigned, is:unassigned, is:overdue)",
  )
  assertRefuses('sort:random', /^unknown 'sort:random' \(use sort:created-desc/)
  assertRefuses('sort:updated sort:created', "'sort:' may be given once")
  assertRefuses('-sort:updated', "'sort:' cannot be excluded with '-'")
  assertRefuses('-#3', "a ticket number ('#12') cannot be excluded with '-'")
})

test('limits: at most 500 characters and 30 terms', () => {
  assertParses('x'.repeat(QUERY_MAX), { words: ['x'.repeat(QUERY_MAX)] })
  assertRefuses('x'.repeat(QUERY_MAX + 1), 'the search must be at most 500 characters')
  assertParses(Array(TERMS_MAX).fill('a').join(' '), { words: Array(TERMS_MAX).fill('a') })
  assertRefuses(
    Array(TERMS_MAX + 1)
      .fill('a')
      .join(' '),
    'the search may have at most 30 terms',
  )
})

test('no input throws: odd characters, quotes and dashes anywhere', () => {
  for (const text of [
    '"',
    '-',
    '--',
    '-"',
    ':',
    'a:',
    '::',
    '"a" "',
    '\u0000',
    'state:"',
    '-state:"open',
    '#',
    '#99999999999',
    'é:x',
  ]) {
    assert.doesNotThrow(() => parseQuery(text), text)
  }
})

test('needsMe() is true only when a person filter says me', () => {
  const query = (text: string) => {
    const parsed = parseQuery(text)
    assert.ok(parsed.ok)
    return parsed.query
  }
  assert.equal(needsMe(query('assignee:me')), true)
  assert.equal(needsMe(query('-author:ME')), true)
  assert.equal(needsMe(query('assignee:alice me')), false)
})

test('withSort() and withState() replace one key and keep the rest as typed', () => {
  assert.equal(
    withSort('login sort:created assignee:"Mary Ann"', 'updated-asc'),
    'login assignee:"Mary Ann" sort:updated-asc',
  )
  assert.equal(withSort('login sort:created', null), 'login')
  assert.equal(withState('state:open -bug "two words"', 'review'), 'state:review -bug "two words"')
  assert.equal(withState('state:open login', null), 'login')
})

test('has:file and has:image ask for linked files, -has: for none; other values are refused', () => {
  assertParses('has:file', { has: { file: true } })
  assertParses('has:Files -has:image', { has: { file: true, image: false } })
  assertRefuses('has:pdf', "unknown 'has:pdf' (use has:file, has:image)")
  assertRefuses('has:', "'has:' needs a value, for example has:file")
})
