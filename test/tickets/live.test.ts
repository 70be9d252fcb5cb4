import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { makeRequest } from '../../src/http/request.ts'
import { createWake } from '../../src/tickets/live/events.ts'
import { emit, emitAll } from '../../src/tickets/store/outbox.ts'
import { createLive, KEEP_MS, type LiveDeps } from '../../src/tickets/live/hub.ts'
import { parseSequenceCursor as parseCursor } from '../../src/http/paging.ts'
import { testDatabase } from '../support/db.ts'
import { testClock } from '../support/service.ts'
import { deferred, until } from '../support/wait.ts'

const db = await testDatabase()
const embedded = process.env.TEST_DATABASE_KIND === 'embedded'
const clock = testClock()
// Polls in these tests wait far longer than any test runs, so only the event under test (or
// the abort, or close) can answer them; a broken wake-up fails the test by its timeout.
const FOREVER = 10 * 60_000
const T = { timeout: 30_000 }

const PROJECTS: Record<string, string> = { alpha: 'alpha0000001', beta: 'beta00000001' }
async function resolveProject(slugOrId: string): Promise<string | null> {
  if (Object.hasOwn(PROJECTS, slugOrId)) return PROJECTS[slugOrId] as string
  return Object.values(PROJECTS).includes(slugOrId) ? slugOrId : null
}

function makeLive(options: Partial<LiveDeps> = {}) {
  const wake = createWake()
  const live = createLive({
    sql: db.sql,
    clock: clock.now,
    wake,
    resolveProject,
    listen: false,
    holdMs: FOREVER,
    ...options,
  })
  after(() => live.close())
  return { live, wake }
}

interface Answer {
  status: number
  headers: Record<string, unknown>
  body: {
    cursor?: number
    events?: { id: number; name: string; args: unknown[] }[]
    reset?: boolean
    error?: string
    field?: string
  }
}

async function poll(
  live: ReturnType<typeof makeLive>['live'],
  query: string,
  signal?: AbortSignal,
): Promise<Answer> {
  const res = await live.handler(makeRequest({ url: `/api/live${query}`, signal }))
  return { status: res.status, headers: res.headers ?? {}, body: JSON.parse(String(res.body)) }
}

/** Writes one event in a transaction of its own, as the ticket service does; returns its id. */
async function write(project: string | null, args: unknown[], at = clock.now()): Promise<number> {
  await db.sql.begin((tx) => emit(tx, project, 'ticketCreated', args, at))
  const [row] = await db.sql<{ id: number }[]>`select max(id) as id from events`
  return row!.id
}

async function cursorNow(live: ReturnType<typeof makeLive>['live']): Promise<number> {
  const { body } = await poll(live, '')
  return body.cursor as number
}

function argsOf(answer: Answer): unknown[] {
  return (answer.body.events ?? []).map((e) => e.args[0])
}

test('without a cursor it answers at once with the current cursor and no events', T, async () => {
  const { live } = makeLive()
  const before = await poll(live, '')
  assert.equal(before.status, 200)
  assert.deepEqual(before.body.events, [])
  await write(null, ['one'])
  const now = await poll(live, '')
  assert.ok((now.body.cursor as number) > (before.body.cursor as number))
})

test(
  'a cursor with newer events is answered at once with them, oldest first, and a new cursor',
  T,
  async () => {
    const { live } = makeLive()
    const start = await cursorNow(live)
    const first = await write('alpha0000001', ['first'])
    await write(null, ['second'])
    const answer = await poll(live, `?after=${start}`)
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.body.events, [
      { id: first, name: 'ticketCreated', args: ['first'] },
      { id: first + 1, name: 'ticketCreated', args: ['second'] },
    ])
    assert.equal(answer.body.cursor, await cursorNow(live))
  },
)

test(
  'a poll with nothing newer waits and is answered with no events when the hold ends',
  T,
  async () => {
    const { live } = makeLive({ holdMs: 20 })
    const start = await cursorNow(live)
    const answer = await poll(live, `?after=${start}`)
    assert.deepEqual(answer.body, { cursor: start, events: [] })
  },
)

test(
  'polls are answered with no events in the order their holds end, also when an earlier one was answered first',
  T,
  async () => {
    const { live } = makeLive({ holdMs: 50 })
    const start = await cursorNow(live)
    const order: string[] = []
    const gone = new AbortController()
    const track = (name: string, answer: Promise<Answer>) =>
      answer.then((a) => {
        order.push(name)
        return a
      })
    const first = track('first', poll(live, `?after=${start}`, gone.signal))
    const second = track('second', poll(live, `?after=${start}`))
    const third = track('third', poll(live, `?after=${start}`))
    // The oldest poll goes early; the hold of the next one still ends on time.
    gone.abort()
    const answers = await Promise.all([first, second, third])
    for (const answer of answers) assert.deepEqual(answer.body, { cursor: start, events: [] })
    assert.deepEqual(order, ['first', 'second', 'third'])
    assert.equal(live.waiting, 0)
  },
)

test('a waiting poll is answered when an event is written and the writer pings', T, async () => {
  const { live, wake } = makeLive()
  const start = await cursorNow(live)
  const waiting = poll(live, `?after=${start}`)
  await until(() => live.waiting === 1)
  await write(null, ['woken'])
  wake.ping()
  const answer = await waiting
  assert.deepEqual(argsOf(answer), ['woken'])
  assert.equal(answer.body.cursor, await cursorNow(live))
  assert.equal(live.waiting, 0)
})

test('an event written while no wake-up comes is found by the periodic check', T, async () => {
  const { live } = makeLive({ checkMs: 10 })
  const start = await cursorNow(live)
  const waiting = poll(live, `?after=${start}`)
  await until(() => live.waiting === 1)
  await write(null, ['unannounced'])
  assert.deepEqual(argsOf(await waiting), ['unannounced'])
})

test(
  '&project= takes a slug or an id and answers only that project, advancing past the others',
  T,
  async () => {
    const { live, wake } = makeLive()
    const start = await cursorNow(live)
    await write('beta00000001', ['beta-1'])
    await write('alpha0000001', ['alpha-1'])
    await write(null, ['global'])
    assert.deepEqual(argsOf(await poll(live, `?after=${start}&project=alpha`)), ['alpha-1'])
    assert.deepEqual(argsOf(await poll(live, `?after=${start}&project=beta00000001`)), ['beta-1'])

    // Waiting for alpha: beta's event does not answer it, alpha's does, and the cursor passes both.
    const now = await cursorNow(live)
    const waiting = poll(live, `?after=${now}&project=alpha`)
    await until(() => live.waiting === 1)
    await write('beta00000001', ['beta-2'])
    wake.ping()
    await write('alpha0000001', ['alpha-2'])
    wake.ping()
    const answer = await waiting
    assert.deepEqual(argsOf(answer), ['alpha-2'])
    assert.equal(answer.body.cursor, await cursorNow(live))
  },
)

test('an unknown project answers 404 no such project', T, async () => {
  const { live } = makeLive()
  for (const query of ['?project=nope', '?after=0&project=nope', '?after=0&project=']) {
    const answer = await poll(live, query)
    assert.equal(answer.status, 404, query)
    assert.deepEqual(answer.body, { error: 'no such project' })
  }
})

test('a malformed cursor answers 400 naming the field after', T, async () => {
  const { live } = makeLive()
  for (const after of [
    '',
    'abc',
    '-1',
    '1.5',
    '01',
    '1e3',
    '0x10',
    '%201',
    '99999999999999999999',
    '9007199254740993',
  ]) {
    const answer = await poll(live, `?after=${after}`)
    assert.equal(answer.status, 400, after)
    assert.deepEqual(
      answer.body,
      { error: "'after' must be a cursor from an earlier answer", field: 'after' },
      after,
    )
  }
  assert.equal(parseCursor('0'), 0)
  assert.equal(parseCursor('9007199254740991'), 9007199254740991)
})

test(
  'events are delivered in commit order when an earlier id commits later, and none is skipped',
  T,
  async () => {
    const { live, wake } = makeLive()
    const start = await cursorNow(live)
    const waiting = poll(live, `?after=${start}`)
    await until(() => live.waiting === 1)
    // Transaction A draws its event id first; B writes (a larger id) and commits; then A commits.
    // The embedded database runs one transaction at a time, so A's id is drawn ahead of its
    // transaction: the table sees the same thing as with two open transactions.
    const [reserved] = await db.sql<
      { id: number }[]
    >`select nextval(pg_get_serial_sequence('events', 'id')) as id`
    const idA = reserved!.id
    const idB = await write(null, ['B'])
    assert.ok(idA < idB)
    wake.ping()
    const first = await waiting
    assert.deepEqual(
      first.body.events?.map((e) => e.id),
      [idB],
    )

    await db.sql.begin(async (tx) => {
      await tx`insert into events (id, project_id, name, args, created) values (${idA}, ${null}, 'ticketCreated', ${tx.json(['A'])}, ${clock.now()})`
    })
    wake.ping()
    const second = await poll(live, `?after=${first.body.cursor}`)
    assert.deepEqual(
      second.body.events?.map((e) => e.id),
      [idA],
    )
    // A page starting from before both sees them in commit order too.
    assert.deepEqual(argsOf(await poll(live, `?after=${start}`)), ['B', 'A'])
  },
)

// On a real server both transactions are open at once and commit against their id order. The
// embedded database runs one transaction at a time: there, the second waits for the first to
// end, so its commit (and its event) comes second; delivery follows commit order all the same.
test(
  'two overlapping transactions are delivered in commit order, also when that is the opposite of their id order',
  T,
  async () => {
    const { live, wake } = makeLive()
    const start = await cursorNow(live)
    const holdA = deferred()
    const aInserted = deferred()
    const transactionA = db.sql.begin(async (tx) => {
      await emit(tx, null, 'ticketCreated', ['A'], clock.now())
      aInserted.resolve()
      await holdA.promise
    })
    await aInserted.promise
    if (embedded) {
      const transactionB = db.sql.begin((tx) => emit(tx, null, 'ticketCreated', ['B'], clock.now()))
      holdA.resolve()
      await Promise.all([transactionA, transactionB])
      wake.ping()
      assert.deepEqual(argsOf(await poll(live, `?after=${start}`)), ['A', 'B'])
      return
    }
    const waiting = poll(live, `?after=${start}`)
    await until(() => live.waiting === 1)
    await db.sql.begin((tx) => emit(tx, null, 'ticketCreated', ['B'], clock.now()))
    wake.ping()
    const first = await waiting
    assert.deepEqual(argsOf(first), ['B'])

    holdA.resolve()
    await transactionA
    wake.ping()
    const second = await poll(live, `?after=${first.body.cursor}`)
    assert.deepEqual(argsOf(second), ['A'])
    const [ids] = await db.sql<{ a: number; b: number }[]>`
    select (select id from events where args = '["A"]' order by id desc limit 1) as a,
           (select id from events where args = '["B"]' order by id desc limit 1) as b`
    assert.ok(ids!.a < ids!.b, 'A has the smaller id')
  },
)

test(
  'a cursor older than what is kept answers reset with the current cursor; 24 hours are kept',
  T,
  async () => {
    const { live } = makeLive()
    const now = clock.now()
    await write(null, ['old-1'], now - KEEP_MS - 60_000)
    const old2 = await write(null, ['old-2'], now - KEEP_MS - 1)
    await write(null, ['day-old'], now - KEEP_MS + 60_000)
    const [row] = await db.sql<{ seq: number }[]>`select seq from events where id = ${old2}`
    const seqOld2 = row!.seq
    assert.ok((await live.prune()) >= 2)
    const [kept] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from events where args = '["day-old"]'`
    assert.equal(kept!.n, 1)

    const current = await cursorNow(live)
    assert.deepEqual((await poll(live, `?after=${seqOld2 - 1}`)).body, {
      reset: true,
      cursor: current,
    })
    assert.deepEqual((await poll(live, '?after=0')).body, { reset: true, cursor: current })
    // From the last deleted event on, nothing was missed.
    assert.deepEqual(argsOf(await poll(live, `?after=${seqOld2}`)), ['day-old'])
  },
)

test('retention keeps the newest event, so the cursor survives a quiet day', T, async () => {
  const { live } = makeLive({ holdMs: 10 })
  const now = clock.now()
  await write(null, ['last, long ago'], now - 3 * KEEP_MS)
  const before = await cursorNow(live)
  await live.prune()
  assert.equal(await cursorNow(live), before)
  const [row] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from events where args = '["last, long ago"]'`
  assert.equal(row!.n, 1)
  assert.deepEqual((await poll(live, `?after=${before}`)).body, { cursor: before, events: [] })
})

test('a cursor beyond the newest event (another database) answers reset', T, async () => {
  const { live } = makeLive()
  const current = await cursorNow(live)
  assert.deepEqual((await poll(live, `?after=${current + 1000}`)).body, {
    reset: true,
    cursor: current,
  })
})

test('a waiting poll is answered at once with no events when its request aborts', T, async () => {
  const { live } = makeLive()
  const start = await cursorNow(live)
  const controller = new AbortController()
  const waiting = poll(live, `?after=${start}`, controller.signal)
  await until(() => live.waiting === 1)
  controller.abort()
  assert.equal(live.waiting, 0)
  assert.deepEqual((await waiting).body, { cursor: start, events: [] })

  const gone = new AbortController()
  gone.abort()
  assert.deepEqual((await poll(live, `?after=${start}`, gone.signal)).body, {
    cursor: start,
    events: [],
  })
})

test('past the cap of waiting polls a poll answers 503 with Retry-After', T, async () => {
  const { live } = makeLive({ maxWaiting: 2 })
  const start = await cursorNow(live)
  const controller = new AbortController()
  const waiting = [
    poll(live, `?after=${start}`, controller.signal),
    poll(live, `?after=${start}`, controller.signal),
  ]
  await until(() => live.waiting === 2)
  const refused = await poll(live, `?after=${start}`)
  assert.equal(refused.status, 503)
  assert.equal(refused.headers['retry-after'], '5')
  assert.deepEqual(refused.body, { error: 'too many waiting requests' })
  // Polls without a cursor never wait, so the cap does not refuse them.
  assert.equal((await poll(live, '')).status, 200)
  controller.abort()
  await Promise.all(waiting)
})

test('close() answers every waiting poll with no events', T, async () => {
  const { live } = makeLive()
  const start = await cursorNow(live)
  const waiting = [poll(live, `?after=${start}`), poll(live, `?after=${start}&project=alpha`)]
  await until(() => live.waiting === 2)
  await live.close()
  for (const answer of await Promise.all(waiting))
    assert.deepEqual(answer.body, { cursor: start, events: [] })
})

test('one read answers all waiting polls, not one read per poll', T, async () => {
  let reads = 0
  const counted = new Proxy(db.sql, {
    apply(target, self, args) {
      reads++
      return Reflect.apply(target, self, args)
    },
  })
  const { live, wake } = makeLive({ sql: counted })
  const start = await cursorNow(live)
  const waiting: Promise<Answer>[] = []
  for (let i = 0; i < 100; i++)
    waiting.push(poll(live, i % 2 ? `?after=${start}` : `?after=${start}&project=alpha`))
  await until(() => live.waiting === 100)
  await write('alpha0000001', ['for all'])
  reads = 0
  wake.ping()
  const answers = await Promise.all(waiting)
  for (const answer of answers) assert.deepEqual(argsOf(answer), ['for all'])
  // The read under way when the event came (if any), and one after it.
  assert.ok(reads <= 2, `${reads} reads`)
})

test(
  'a failed read fails the polls it was for (a logged 500) and later polls are served again',
  T,
  async () => {
    let failing = false
    const flaky = new Proxy(db.sql, {
      apply(target, self, args) {
        if (failing) return Promise.reject(new Error('database gone'))
        return Reflect.apply(target, self, args)
      },
    })
    const lines: string[] = []
    const { live } = makeLive({
      sql: flaky,
      holdMs: 10,
      logger: { line: (text) => void lines.push(text), flush() {} },
    })
    const start = await cursorNow(live)
    failing = true
    await assert.rejects(poll(live, `?after=${start}`), /database gone/)
    assert.deepEqual(lines, ['live read failed: database gone'])
    failing = false
    assert.deepEqual((await poll(live, `?after=${start}`)).body, { cursor: start, events: [] })
  },
)

test(
  'while a webhook exists, events not yet turned into its deliveries are kept past 24 hours',
  T,
  async () => {
    const { live } = makeLive()
    await live.prune()
    const now = clock.now()
    const [fanned] = await db.sql<
      { seq: number }[]
    >`select coalesce(max(seq), 0)::bigint as seq from events`
    await db.sql`update webhook_state set fanned_through = ${fanned!.seq}`
    await db.sql.begin(async (tx) => {
      await tx`insert into project_names (name, project_id) values ('hooked', 'hooked000001'), ('hooked000001', 'hooked000001')`
      await tx`insert into projects (id, slug, title, created) values ('hooked000001', 'hooked', 'Hooked', ${now})`
    })
    await db.sql`insert into webhooks (id, project_id, url, events, active, secret, since_seq, created)
    values ('hook00000001', 'hooked000001', 'https://example.com/hook', '{}', true, 'whsec_x', ${fanned!.seq}, ${now})`
    await write(null, ['unsent-1'], now - KEEP_MS - 60_000)
    await write(null, ['unsent-2'], now - KEEP_MS - 30_000)
    await write(null, ['newest'], now)
    const unsent = async () =>
      (
        await db.sql<
          { n: number }[]
        >`select count(*)::int as n from events where args::text like '%unsent%'`
      )[0]!.n
    await live.prune()
    assert.equal(await unsent(), 2, 'events the webhooks have not had are kept')
    await db.sql`update webhook_state set fanned_through = (select max(seq) from events)`
    await live.prune()
    assert.equal(await unsent(), 0, 'once they have had them, they go')
    await db.sql`delete from projects where id = 'hooked000001'`
  },
)

test(
  "one person's events reach that person's polls that ask with mine=1, and nobody else's",
  T,
  async () => {
    // The viewer is who the request's `x-user` header names (the service reads the session).
    const { live } = makeLive({ viewer: async (req) => (req.headers['x-user'] as string) ?? null })
    const from = await cursorNow(live)
    const ask = async (query: string, user?: string): Promise<Answer['body']> => {
      const headers: Record<string, string> = user ? { 'x-user': user } : {}
      const res = await live.handler(makeRequest({ url: `/api/live${query}`, headers }))
      return JSON.parse(String(res.body)) as Answer['body']
    }
    const mine = ask(`?after=${from}&mine=1`, 'ann')
    const someoneElse = ask(`?after=${from}&mine=1`, 'bob')
    const withoutMine = ask(`?after=${from}`, 'ann')
    const project = ask(`?after=${from}&project=alpha&mine=1`, 'ann')
    await until(() => live.waiting === 4)
    await db.sql.begin((tx) =>
      emitAll(tx, [
        {
          project: null,
          user: 'ann',
          name: 'notificationsChanged',
          args: [{ added: 1 }],
          created: clock.now(),
        },
        // In the same transaction, so that one read sees both.
        { project: null, name: 'ticketCreated', args: ['after'], created: clock.now() },
      ]),
    )
    const answered = await mine
    assert.deepEqual(
      answered.events?.map((e) => e.name),
      ['notificationsChanged', 'ticketCreated'],
    )
    assert.deepEqual(
      (await project).events?.map((e) => e.name),
      ['notificationsChanged'],
    )
    for (const other of [await someoneElse, await withoutMine])
      assert.deepEqual(
        other.events?.map((e) => e.args[0]),
        ['after'],
      )
  },
)
