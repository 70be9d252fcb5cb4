/**
 * The logic of the ticket pages' browser script, in Node: the API client, form sending, keyboard
 * shortcuts, the live follower and its announcements. The browser tests cover what only a
 * browser shows.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  createApiClient,
  readable,
  NETWORK_FAILED,
  sentence,
  SIGNED_OUT,
  TIMED_OUT,
  type ApiAnswer,
} from '../../src/tickets/app/api.ts'
import { createFormSender, type FormView } from '../../src/tickets/app/form.ts'
import {
  announcement,
  changedKeys,
  createLiveFollower,
  touches,
  type LiveEvent,
} from '../../src/tickets/app/live.ts'
import { createShortcuts, SEQUENCE_MS, type KeyInput } from '../../src/tickets/app/shortcuts.ts'

const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })

test('the API client posts JSON with the session tag and answers the body', async () => {
  const seen: { url: string; init: RequestInit }[] = []
  const api = createApiClient({
    tag: 'tag-1',
    fetch: (async (url: string, init: RequestInit) => {
      seen.push({ url, init })
      return jsonAnswer(201, { ticket: { ref: 'web#1' } })
    }) as typeof fetch,
  })
  const answer = await api.post('/api/projects/web/tickets', { subject: 'Hi' })
  assert.deepEqual(answer, { ok: true, status: 201, body: { ticket: { ref: 'web#1' } } })
  assert.equal(seen[0]!.url, '/api/projects/web/tickets')
  assert.equal(seen[0]!.init.method, 'POST')
  assert.deepEqual(seen[0]!.init.headers, { 'content-type': 'application/json', 'x-tag': 'tag-1' })
  assert.equal(seen[0]!.init.body, '{"subject":"Hi"}')
})

test('a refusal answers its code, the API message as a sentence and the field it names', async () => {
  const refusal = (status: number, code: string, body: unknown) =>
    createApiClient({
      tag: 't',
      fetch: async () => jsonAnswer(status, body, { 'x-error-code': code }),
    })
  const api = refusal(403, 'forbidden', { error: 'this needs role edit or admin' })
  assert.deepEqual(await api.post('/x', {}), {
    ok: false,
    status: 403,
    code: 'forbidden',
    error: 'This needs role edit or admin.',
    field: null,
  })
  const field = refusal(400, 'field_required', { error: "'subject' is required", field: 'subject' })
  assert.deepEqual(await field.post('/x', {}), {
    ok: false,
    status: 400,
    code: 'field_required',
    error: 'Fill in the subject.',
    field: 'subject',
  })
  // The code decides, not the words: a message that reads like another rule is said as it is.
  const lookalike = refusal(400, 'bad_field', { error: "'subject' is required", field: 'subject' })
  assert.deepEqual(await lookalike.post('/x', {}), {
    ok: false,
    status: 400,
    code: 'bad_field',
    error: "'subject' is required.",
    field: 'subject',
  })
})

test('a network failure, a timeout, a signed-out session and a non-JSON error each say what happened', async () => {
  const down = createApiClient({
    tag: 't',
    fetch: async () => {
      throw new TypeError('Failed to fetch')
    },
  })
  assert.deepEqual(await down.post('/x', {}), {
    ok: false,
    status: 0,
    code: 'network_failed',
    error: NETWORK_FAILED,
    field: null,
  })
  const slow = createApiClient({
    tag: 't',
    timeoutMs: 20,
    fetch: ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal!.addEventListener('abort', () =>
          reject(new DOMException('aborted', 'AbortError')),
        ),
      )) as unknown as typeof fetch,
  })
  assert.deepEqual(await slow.post('/x', {}), {
    ok: false,
    status: 0,
    code: 'timed_out',
    error: TIMED_OUT,
    field: null,
  })
  const out = createApiClient({
    tag: 't',
    fetch: async () =>
      jsonAnswer(401, { error: 'a token is needed' }, { 'x-error-code': 'token_needed' }),
  })
  assert.deepEqual(await out.post('/x', {}), {
    ok: false,
    status: 401,
    code: 'token_needed',
    error: SIGNED_OUT,
    field: null,
  })
  const proxy = createApiClient({
    tag: 't',
    fetch: async () => new Response('<h1>Bad gateway</h1>', { status: 502 }),
  })
  assert.deepEqual(await proxy.post('/x', {}), {
    ok: false,
    status: 502,
    code: null,
    error: 'The server answered 502. Nothing was saved; try again.',
    field: null,
  })
})

test("readable() says the API's body refusals in words by their code; sentence() keeps a reference or slug as written", () => {
  assert.equal(readable('field_required', "'text' is required", 'text'), 'Fill in the comment.')
  assert.equal(
    readable('field_required', "'subject' is required", 'subject'),
    'Fill in the subject.',
  )
  assert.equal(
    readable('too_long', "'summary' is at most 100000 characters", 'summary'),
    'The summary can be at most 100,000 characters.',
  )
  assert.equal(
    readable('too_long', "'title' is at most 200 characters", 'title'),
    'The title can be at most 200 characters.',
  )
  assert.equal(readable('no_such_ticket', 'no such ticket', null), 'No such ticket.')
  assert.equal(readable('bad_relation', 'web#1 has no parent', 'parent'), 'web#1 has no parent.')
  assert.equal(readable('slug_taken', "'api' is reserved", 'slug'), "'api' is reserved.")
  assert.equal(
    readable('field_required', "'wobble' is required", 'wobble'),
    "'wobble' is required.",
  )
  assert.equal(readable(null, "'text' is required", 'text'), "'text' is required.")
})

test('sentence() capitalises and ends an API message', () => {
  assert.equal(sentence('no such ticket'), 'No such ticket.')
  assert.equal(sentence('Already a sentence.'), 'Already a sentence.')
  assert.equal(sentence(''), '')
})

/** A form for the sender's logic, recording what the page would show. */
function fakeForm(values: Record<string, string>, fields: string[]) {
  const shown: { busy: boolean[]; errors: [string | null, string][]; cleared: number } = {
    busy: [],
    errors: [],
    cleared: 0,
  }
  const view: FormView = {
    action: () => '/api/x',
    values: () => ({ ...values }),
    headers: () => ({}),
    hasField: (name) => fields.includes(name),
    setBusy: (busy) => void shown.busy.push(busy),
    clearErrors: () => void shown.cleared++,
    showError: (field, text) => void shown.errors.push([field, text]),
  }
  return { view, shown, values }
}

function scriptedApi(answers: ApiAnswer[]) {
  const bodies: Record<string, string>[] = []
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  return {
    bodies,
    release,
    api: {
      async post(_path: string, body: Record<string, string>) {
        bodies.push(body)
        await gate
        return answers.shift()!
      },
    },
  }
}

test('a form is busy while it sends, ignores a second submit, and shows a refusal at its field', async () => {
  const form = fakeForm({ subject: 'typed text' }, ['subject'])
  const script = scriptedApi([
    {
      ok: false,
      status: 400,
      code: 'too_long',
      error: "'subject' is at most 500 characters.",
      field: 'subject',
    },
  ])
  const sender = createFormSender({ api: script.api })
  const first = sender.send(form.view)
  assert.equal(await sender.send(form.view), null)
  script.release()
  const answer = await first
  assert.equal(answer?.ok, false)
  assert.deepEqual(form.shown.busy, [true, false])
  assert.deepEqual(form.shown.errors, [['subject', "'subject' is at most 500 characters."]])
  assert.deepEqual(form.values, { subject: 'typed text' })
  assert.equal(script.bodies.length, 1)
})

test('a refusal naming a field the form does not show goes to the whole form; the button that sent it is in the body', async () => {
  const form = fakeForm({}, ['add'])
  const script = scriptedApi([
    {
      ok: false,
      status: 403,
      code: 'forbidden',
      error: 'This needs role edit or admin.',
      field: 'project',
    },
  ])
  script.release()
  await createFormSender({ api: script.api }).send(form.view, { name: 'remove', value: 'web#3' })
  assert.deepEqual(form.shown.errors, [[null, 'This needs role edit or admin.']])
  assert.deepEqual(script.bodies, [{ remove: 'web#3' }])
})

const key = (k: string, time: number, more: Partial<KeyInput> = {}): KeyInput => ({
  key: k,
  ctrlKey: false,
  altKey: false,
  metaKey: false,
  typing: false,
  time,
  ...more,
})

test('shortcuts: c, /, ?, and g then i within the time', () => {
  const s = createShortcuts()
  assert.equal(s.key(key('c', 0)), 'new-ticket')
  assert.equal(s.key(key('/', 0)), 'search')
  assert.equal(s.key(key('?', 0)), 'help')
  assert.equal(s.key(key('g', 0)), null)
  assert.equal(s.key(key('i', SEQUENCE_MS)), 'inbox')
  assert.equal(s.key(key('i', SEQUENCE_MS + 1)), null)
  assert.equal(s.key(key('g', 0)), null)
  assert.equal(s.key(key('i', SEQUENCE_MS + 1)), null)
  assert.equal(s.key(key('x', 0)), null)
})

test('no shortcut fires while typing in a field or with Ctrl, Alt or Meta held', () => {
  const s = createShortcuts()
  for (const k of ['c', '/', '?', 'g']) {
    assert.equal(s.key(key(k, 0, { typing: true })), null)
    assert.equal(s.key(key(k, 0, { ctrlKey: true })), null)
    assert.equal(s.key(key(k, 0, { metaKey: true })), null)
    assert.equal(s.key(key(k, 0, { altKey: true })), null)
  }
  assert.equal(s.key(key('g', 0)), null)
  assert.equal(s.key(key('i', 10, { typing: true })), null)
})

test('a ticket page follows its ticket and related views that name it; a list follows everything', () => {
  const mine: LiveEvent = { name: 'ticketEvent', args: ['t1', {}, {}] }
  const other: LiveEvent = { name: 'ticketEvent', args: ['t2', {}, {}] }
  const related: LiveEvent = { name: 'ticketsRelated', args: [[{ id: 't1' }]] }
  assert.equal(touches(mine, 't1'), true)
  assert.equal(touches(other, 't1'), false)
  // An upload redraws no page: a ticket shows the file once a change of its own links it.
  assert.equal(touches({ name: 'fileAttached', args: [{ id: 'f1' }] }, null), false)
  assert.equal(touches(related, 't1'), true)
  assert.equal(touches({ name: 'ticketCreated', args: [{ id: 't3' }] }, 't1'), false)
  assert.equal(touches(other, null), true)
})

test('the project settings follow their own events only, so a comment is not read out there', () => {
  const settings = ['projectChanged', 'membersChanged', 'connectionsChanged']
  assert.equal(touches({ name: 'membersChanged', args: ['web'] }, null, settings), true)
  assert.equal(touches({ name: 'connectionsChanged', args: ['web'] }, null, settings), true)
  assert.equal(touches({ name: 'ticketEvent', args: ['t1', {}, {}] }, null, settings), false)
  assert.equal(touches({ name: 'ticketCreated', args: [{ id: 't3' }] }, null, settings), false)
})

test('the follower polls with its cursor, hands on touching events, waits on 503 and on failures, and never loses the cursor', async () => {
  const urls: string[] = []
  const sleeps: number[] = []
  const changes: [string[], boolean][] = []
  const answers: (() => Response)[] = [
    () => jsonAnswer(200, { cursor: 5, events: [{ name: 'ticketEvent', args: ['t2'] }] }),
    () => jsonAnswer(503, { error: 'too many waiting requests' }, { 'retry-after': '5' }),
    () => {
      throw new TypeError('offline')
    },
    () =>
      jsonAnswer(200, {
        cursor: 7,
        events: [
          { name: 'ticketEvent', args: ['t1', { by: 'bob', kind: 'comment' }, { ref: 'web#1' }] },
        ],
      }),
    () => jsonAnswer(200, { reset: true, cursor: 9 }),
  ]
  const follower = createLiveFollower({
    project: 'web',
    ticket: 't1',
    cursor: '4',
    fetch: (async (url: string) => {
      urls.push(url)
      const next = answers.shift()
      if (!next) {
        follower.stop()
        return jsonAnswer(200, { cursor: 9, events: [] })
      }
      return next()
    }) as unknown as typeof fetch,
    sleep: async (ms) => void sleeps.push(ms),
    onChange: async (events, reset) =>
      void changes.push([events.map((e) => String(e.args[0])), reset]),
  })
  await follower.run()
  assert.deepEqual(urls, [
    '/api/live?project=web&after=4',
    '/api/live?project=web&after=5',
    '/api/live?project=web&after=5',
    '/api/live?project=web&after=5',
    '/api/live?project=web&after=7',
    '/api/live?project=web&after=9',
  ])
  assert.deepEqual(sleeps, [5000, 1000])
  assert.deepEqual(changes, [
    [['t1'], false],
    [[], true],
  ])
})

test('an announcement says who did what on which ticket, three at most', () => {
  const comment = (ref: string): LiveEvent => ({
    name: 'ticketEvent',
    args: ['x', { kind: 'comment', by: 'bob', text: 'hi' }, { ref }],
  })
  assert.equal(announcement([comment('web#1')]), 'bob commented on web#1.')
  assert.equal(
    announcement([
      {
        name: 'ticketEvent',
        args: ['x', { kind: 'state', by: 'amy', from: 'open', to: 'doing' }, { ref: 'web#2' }],
      },
    ]),
    'amy changed the state from open to doing on web#2.',
  )
  assert.equal(
    announcement([{ name: 'ticketCreated', args: [{ ref: 'web#3', subject: 'Fix it' }] }]),
    'New ticket web#3: Fix it.',
  )
  assert.equal(
    announcement([comment('a#1'), comment('a#2'), comment('a#3'), comment('a#4'), comment('a#5')]),
    'bob commented on a#1. bob commented on a#2. bob commented on a#3. And 2 more changes.',
  )
  assert.equal(announcement([{ name: 'ticketsRelated', args: [[]] }]), 'Related tickets changed.')
  assert.equal(
    announcement([
      { name: 'membersChanged', args: ['web'] },
      { name: 'connectionsChanged', args: ['web'] },
    ]),
    'The members changed. The connected apps changed.',
  )
  assert.equal(
    announcement([{ name: 'projectChanged', args: ['www'] }]),
    'The project’s title, slug or description changed.',
  )
  assert.equal(announcement([]), '')
})

test('changedKeys() lists the items that are new or differ', () => {
  const before = new Map([
    ['a', '<li>1</li>'],
    ['b', '<li>2</li>'],
  ])
  const after = new Map([
    ['a', '<li>1</li>'],
    ['b', '<li>2!</li>'],
    ['c', '<li>3</li>'],
  ])
  assert.deepEqual(changedKeys(before, after), ['b', 'c'])
})
