import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ticketsApp, expectJson, type Person } from './support.ts'
import { mentionedIn } from '../../src/tickets/rules/mentions.ts'

const app = await ticketsApp()
const { call } = app
const ann = await app.login('ann')
const bob = await app.login('bob')
const web = await app.project(ann, 'Web')
await app.member(ann, web.slug, bob, 'edit')

async function fanOut(): Promise<void> {
  app.service.notify.poke()
  await app.service.notify.settled()
}

async function comment(person: Person, n: number, text: string) {
  const made = await call('POST', `/api/projects/${web.slug}/tickets/${n}/comments`, {
    token: person.token,
    body: { text },
  })
  assert.equal(made.status, 201, made.text)
  return made.body.event as { id: number }
}

async function list(person: Person, query = '') {
  await fanOut()
  return call('GET', `/api/notifications${query}`, { token: person.token })
}

test('GET /api/notifications answers the mention with its ticket, reason, event, actor, time and read', async () => {
  const t = await app.ticket(ann, web.slug, { subject: 'Login fails' })
  const event = await comment(ann, t.number, 'What do you think, @bob?')
  const answer = await list(bob)
  expectJson(answer, 200)
  const [first] = answer.body.notifications
  assert.deepEqual(first, {
    id: first.id,
    ticket: {
      id: t.id,
      project: web.id,
      number: t.number,
      subject: 'Login fails',
      ref: t.ref,
      url: `http://localhost:3002/web/${t.number}`,
    },
    reason: 'mentioned',
    kind: 'comment',
    event: first.event,
    actor: { id: ann.id, name: 'ann' },
    at: first.at,
    read: false,
  })
  assert.equal(first.event.id, event.id)
  assert.equal(first.event.text, 'What do you think, @bob?')
  assert.equal(answer.body.unread, 1)
  assert.equal(answer.headers['cache-control'], 'private, no-store')
})

test('nobody is told of their own comment', async () => {
  const before = (await list(ann)).body.unread
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t.number, 'Note to self, @ann')
  assert.equal((await list(ann)).body.unread, before)
})

test('the list is newest first and paged with limit and after as the ticket lists are', async () => {
  const t = await app.ticket(bob, web.slug)
  for (const text of ['one', 'two', 'three']) await comment(ann, t.number, text)
  const all = (await list(bob)).body.notifications as { id: string; event: { text?: string } }[]
  assert.deepEqual(
    all.slice(0, 3).map((n) => n.event.text),
    ['three', 'two', 'one'],
  )
  const first = await list(bob, '?limit=2')
  expectJson(first, 200)
  assert.deepEqual(
    first.body.notifications.map((n: { id: string }) => n.id),
    all.slice(0, 2).map((n) => n.id),
  )
  assert.match(first.body.next, /^http:\/\/localhost:3002\/api\/notifications\?limit=2&after=/)
  assert.equal(first.headers.link, `<${first.body.next}>; rel="next"`)
  const second = await call('GET', first.body.next.replace('http://localhost:3002', ''), {
    token: bob.token,
  })
  assert.deepEqual(
    second.body.notifications.map((n: { id: string }) => n.id),
    all.slice(2, 4).map((n) => n.id),
  )
})

test('bad limit and after answer 400 naming the field', async () => {
  expectJson(await call('GET', '/api/notifications?limit=0', { token: bob.token }), 400, {
    error: "'limit' must be a whole number from 1 to 1000",
    field: 'limit',
  })
  expectJson(await call('GET', '/api/notifications?after=web3', { token: bob.token }), 400, {
    error: "'after' must be a cursor from a 'next' address of this list",
    field: 'after',
  })
})

test('POST /api/notifications/read marks one read, then all, answering the unread count', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t.number, '@bob first')
  await comment(ann, t.number, '@bob second')
  const before = await list(bob)
  const unread = before.body.unread as number
  assert.ok(unread >= 2)
  const one = await call('POST', '/api/notifications/read', {
    token: bob.token,
    body: { id: before.body.notifications[0].id },
  })
  expectJson(one, 200, { unread: unread - 1 })
  assert.equal((await list(bob)).body.notifications[0].read, true)
  expectJson(
    await call('POST', '/api/notifications/read', { token: bob.token, body: { all: 'true' } }),
    200,
    { unread: 0 },
  )
})

test('marking read refuses what is not the caller’s and bodies that name nothing', async () => {
  const mine = (await list(bob)).body.notifications[0].id as string
  expectJson(
    await call('POST', '/api/notifications/read', { token: ann.token, body: { id: mine } }),
    404,
    { error: 'no such notification', field: 'id' },
  )
  expectJson(
    await call('POST', '/api/notifications/read', { token: bob.token, body: { id: 'x' } }),
    404,
    { error: 'no such notification', field: 'id' },
  )
  expectJson(await call('POST', '/api/notifications/read', { token: bob.token, body: {} }), 400, {
    error: "give 'id' or 'all': \"true\"",
    field: 'id',
  })
  expectJson(
    await call('POST', '/api/notifications/read', { token: bob.token, body: { all: 'yes' } }),
    400,
    { error: '\'all\' must be "true"', field: 'all' },
  )
})

test('without a credential 401, a connected app’s project key 401 as on every route for people', async () => {
  expectJson(await call('GET', '/api/notifications'), 401)
  const key = `tk_${'A'.repeat(43)}`
  expectJson(await call('GET', '/api/notifications', { token: key }), 401, {
    error: 'a user token is needed',
  })
  expectJson(
    await call('POST', '/api/notifications/read', { token: key, body: { all: 'true' } }),
    401,
    { error: 'a user token is needed' },
  )
})

test('the session cookie needs its x-tag, as on the other private routes', async () => {
  const noTag = await call('GET', '/api/notifications', { headers: { cookie: bob.cookie } })
  assert.equal(noTag.status, 403, noTag.text)
  const withTag = await call('GET', '/api/notifications', {
    headers: { cookie: bob.cookie, 'x-tag': bob.tag },
  })
  expectJson(withTag, 200)
})

test('opening the ticket page marks its notifications read', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t.number, 'Look @bob')
  const before = (await list(bob)).body.unread as number
  const page = await call('GET', `/web/${t.number}`, { headers: { cookie: bob.cookie } })
  assert.equal(page.status, 200)
  assert.equal((await list(bob)).body.unread, before - 1)
})

test('opening the ticket page reads its notifications that go by mail only, and a second opening finds none to read', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t.number, 'By mail, @bob')
  await fanOut()
  // As the fan-out makes it for a person who takes mentions by mail alone.
  await app.sql`update notifications set in_app = false
    where user_id = ${bob.id} and ticket_id = ${t.id} and read_at is null`
  const unread = () =>
    app.sql<{ n: number }[]>`select count(*)::int as n from notifications
      where user_id = ${bob.id} and ticket_id = ${t.id} and read_at is null`
  assert.equal((await unread())[0]!.n, 1)
  const before = (await list(bob)).body.unread as number
  for (let i = 0; i < 2; i++) {
    const page = await call('GET', `/web/${t.number}`, { headers: { cookie: bob.cookie } })
    assert.equal(page.status, 200)
    assert.equal((await unread())[0]!.n, 0, 'read, so no mail tells of it')
    assert.equal((await list(bob)).body.unread, before, 'the bell counts only the app')
  }
})

test('Watch and Unwatch of a ticket, Watch all of a project', async () => {
  const t = await app.ticket(ann, web.slug)
  const watch = (watching: string) =>
    call('POST', `/api/projects/${web.slug}/tickets/${t.number}/watch`, {
      token: bob.token,
      body: { watching },
    })
  expectJson(await watch('true'), 200, { watching: true })
  const since = (await list(bob)).body.unread as number
  await comment(ann, t.number, 'news')
  assert.equal((await list(bob)).body.unread, since + 1)
  expectJson(await watch('false'), 200, { watching: false })
  await comment(ann, t.number, 'more news')
  assert.equal((await list(bob)).body.unread, since + 1)
  expectJson(await watch('maybe'), 400, {
    error: '\'watching\' must be "true" or "false"',
    field: 'watching',
  })
  expectJson(
    await call('POST', `/api/projects/${web.slug}/watch`, {
      token: bob.token,
      body: { all: 'true' },
    }),
    200,
    { all: true },
  )
  await app.ticket(ann, web.slug)
  assert.equal((await list(bob)).body.notifications[0].kind, 'created')
  expectJson(
    await call('POST', `/api/projects/${web.slug}/watch`, {
      token: bob.token,
      body: { all: 'false' },
    }),
    200,
    { all: false },
  )
  expectJson(
    await call('POST', '/api/projects/nope/watch', { token: bob.token, body: { all: 'true' } }),
    404,
    { error: 'no such project' },
  )
})

test('choices per kind: app off tells nothing in the app; the default is the owner’s to change', async () => {
  const shown = await call('GET', '/api/notifications/settings', { token: bob.token })
  expectJson(shown, 200, {
    prefs: {
      assigned: { app: true, mail: true },
      mentioned: { app: true, mail: true },
      watching: { app: true, mail: false },
      due: { app: true, mail: true },
    },
    defaults: shown.body.defaults,
    mail: false,
  })
  const off = {
    assigned_app: 'true',
    assigned_mail: 'true',
    mentioned_app: 'false',
    mentioned_mail: 'false',
    watching_app: 'true',
    watching_mail: 'false',
  }
  expectJson(
    await call('POST', '/api/notifications/settings', { token: bob.token, body: off }),
    200,
  )
  const since = (await list(bob)).body.unread as number
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t.number, 'hello @bob')
  assert.equal((await list(bob)).body.unread, since)
  expectJson(
    await call('POST', '/api/notifications/settings', {
      token: bob.token,
      body: { ...off, mentioned_app: 'yes' },
    }),
    400,
    { error: '\'mentioned_app\' must be "true" or "false"', field: 'mentioned_app' },
  )
  expectJson(
    await call('POST', '/api/notifications/defaults', { token: bob.token, body: off }),
    403,
    { error: 'only the owner may change the default for new people' },
  )
})

test('mentions: display name, name without spaces, any case; not in code, not in addresses', () => {
  const members = [
    { id: 'a', name: 'Ann Lee' },
    { id: 'b', name: 'bob' },
    { id: 'c', name: 'Ann' },
    { id: 'd', name: 'twin' },
    { id: 'e', name: 'twin' },
  ]
  assert.deepEqual(mentionedIn('@Ann Lee and @BOB.', members), ['a', 'b'])
  assert.deepEqual(mentionedIn('@annlee, @Ann!', members), ['a', 'c'])
  assert.deepEqual(mentionedIn('mail bob@example.com', members), [])
  assert.deepEqual(mentionedIn('`@bob` and\n```\n@Ann\n```\n', members), [])
  assert.deepEqual(mentionedIn('@bobby @twin', members), [])
})

test('/notifications shows 50 tickets a page and links to the older ones', async () => {
  await call('POST', '/api/notifications/read', { token: bob.token, body: { all: 'true' } })
  for (let i = 0; i < 51; i++) {
    await app.ticket(ann, web.slug, { subject: `Page ${i}`, assignee: 'bob' })
  }
  await fanOut()
  const first = await call('GET', '/notifications', { headers: { cookie: bob.cookie } })
  assert.equal(first.status, 200, first.text)
  assert.equal(first.text.match(/New ticket web#/g)?.length, 50)
  const older = /href="(\/notifications\?before=\d+)" rel="next"/.exec(first.text)
  assert.ok(older, 'a link to the older notifications')
  const second = await call('GET', older[1]!, { headers: { cookie: bob.cookie } })
  assert.equal(second.status, 200, second.text)
  assert.match(second.text, /New ticket web#/)
  assert.match(second.text, /Newest/)
})

test('/notifications finds an older ticket behind 2,000 newer notifications of one ticket', async () => {
  await call('POST', '/api/notifications/read', { token: bob.token, body: { all: 'true' } })
  const quiet = await app.ticket(ann, web.slug, { subject: 'Quiet one', assignee: 'bob' })
  const busy = await app.ticket(ann, web.slug, { subject: 'Busy one' })
  await fanOut()
  await app.sql`
    insert into notifications (user_id, ticket_id, event_id, kind, reason, actor_id, actor, at, in_app, mail_state)
    select ${bob.id}, ${busy.id}, null, 'due', 'due', null, 'the clock', n, true, 'none'
    from generate_series(1, 2100) n`
  const page = await call('GET', '/notifications', { headers: { cookie: bob.cookie } })
  assert.equal(page.status, 200, page.text)
  assert.match(page.text, /2,100 due date changes on web#|2100 due date changes on web#/)
  assert.match(page.text, new RegExp(`New ticket web#${quiet.number}`))
})

test('a ticket on /notifications tells its unread in the order they came, the first three people, and links to the first unread event', async () => {
  const carol = await app.login('carol')
  const dave = await app.login('dave')
  const erin = await app.login('erin')
  for (const person of [carol, dave, erin]) await app.member(ann, web.slug, person, 'edit')
  const t = await app.ticket(ann, web.slug, { subject: 'Told in order', assignee: 'bob' })
  await fanOut()
  await call('POST', '/api/notifications/read', { token: bob.token, body: { all: 'true' } })
  const first = await comment(carol, t.number, 'The first word since')
  const moved = await call('POST', `/api/tickets/${t.id}/state`, {
    token: ann.token,
    body: { state: 'doing' },
  })
  assert.equal(moved.status, 201, moved.text)
  await comment(dave, t.number, 'Second')
  await comment(erin, t.number, 'Third')
  await comment(ann, t.number, 'Fourth')
  await fanOut()
  const page = await call('GET', '/notifications', { headers: { cookie: bob.cookie } })
  assert.equal(page.status, 200, page.text)
  const item = page.text.split('<li ').find((li) => li.includes('Told in order'))
  assert.ok(item, 'the ticket is listed')
  assert.match(item, new RegExp(`4 new comments and 1 state change on ${web.slug}#${t.number}<`))
  assert.match(item, /by carol, ann, dave</)
  assert.match(item, new RegExp(`href="/${web.slug}/${t.number}#event-${first.id}"`))
  assert.equal(item.match(/class="pill reason-/g)?.length, 1, 'one reason: watching')

  // What was read is not told again: the first comment read, the group starts at the state change.
  const [read] = await app.sql<{ id: string }[]>`
    select id::text from notifications where user_id = ${bob.id} and event_id = ${first.id}`
  await call('POST', '/api/notifications/read', { token: bob.token, body: { id: read!.id } })
  const after = await call('GET', '/notifications', { headers: { cookie: bob.cookie } })
  const later = after.text.split('<li ').find((li) => li.includes('Told in order'))!
  assert.match(later, new RegExp(`1 state change and 3 new comments on ${web.slug}#${t.number}<`))
  assert.match(later, /by ann, dave, erin</)
})
