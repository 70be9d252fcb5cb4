/**
 * Webhooks (docs/webhooks.md): the routes, their order of checks and refusals; delivery of
 * every change, signed as Standard Webhooks says and verified here with the `standardwebhooks`
 * package; retries at the back-off, 410, a slow target beside a quick one, the delivery log,
 * test events and redelivery, secrets and their rotation, and connected apps' own webhooks.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp, expectJson } from './support.ts'
import { signedWith, verifyWith, webhookReceiver } from '../support/webhook-receiver.ts'
import { RETRY_WAITS_MS } from '../../src/tickets/rules/webhook-events.ts'
import { FAILED_REASON, GONE_REASON } from '../../src/tickets/workers/webhook-worker.ts'

// The service's clock is the wall clock moved by the test, so `standardwebhooks` accepts the
// timestamps until a test moves it far.
let offset = 0
const clock = () => Date.now() + offset
const app = await ticketsApp({
  env: { WEBHOOK_ALLOW_PRIVATE: '1' },
  webhooks: { random: () => 0.5, intervalMs: 50 },
  clock: { now: clock, advance: (ms) => void (offset += ms) },
})
const receiver = await webhookReceiver()
const alice = await app.login('alice')
const bob = await app.login('bob')
const web = await app.project(alice, 'Web site', { slug: 'web' })
await app.member(alice, 'web', bob, 'edit')

let worker = app.service.webhooks
/** After a test closed the worker, a second service on the same schema takes over delivery. */
async function replaceWorker() {
  worker = (
    await app.another({ WEBHOOK_ALLOW_PRIVATE: '1' }, { random: () => 0.5, intervalMs: 50 })
  ).service.webhooks
}

async function addWebhook(slug: string, body: Record<string, unknown>, token = alice.token) {
  const made = await app.call('POST', `/api/projects/${slug}/webhooks`, { token, body })
  assert.equal(made.status, 201, made.text)
  return made.body as {
    webhook: { id: string; url: string; events: string[]; active: boolean }
    secret: string
  }
}

async function log(slug: string, id: string, token = alice.token) {
  const answer = await app.call('GET', `/api/projects/${slug}/webhooks/${id}/deliveries`, { token })
  assert.equal(answer.status, 200, answer.text)
  return answer.body.deliveries as {
    id: string
    message: string
    type: string
    state: string
    attempts: number
    status: number | null
    answer: string | null
    error: string | null
    durationMs: number | null
  }[]
}

test('adding a webhook answers it with a whsec_ secret shown once; the list never shows a secret', async () => {
  const made = await addWebhook('web', {
    url: receiver.url('/list'),
    events: ['ticket.created', 'ticket.commented'],
  })
  assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  assert.deepEqual(made.webhook.events, ['ticket.created', 'ticket.commented'])
  assert.equal(made.webhook.active, true)
  const list = await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
  expectJson(list, 200)
  const listed = list.body.webhooks.find((w: { id: string }) => w.id === made.webhook.id)
  assert.equal(listed.url, receiver.url('/list'))
  assert.doesNotMatch(list.text, /whsec_/)
  assert.equal(list.headers['cache-control'], 'no-store')
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('the routes check the credential, then the body, then the project, then the role, then the rules', async () => {
  const url = receiver.url()
  expectJson(await app.call('POST', '/api/projects/web/webhooks', { body: { url } }), 401, {
    error: 'a token is needed',
  })
  expectJson(await app.call('GET', '/api/projects/web/webhooks'), 401, {
    error: 'a token is needed',
  })
  expectJson(
    await app.call('POST', '/api/projects/nope/webhooks', {
      token: alice.token,
      body: { url, colour: 'red' },
    }),
    400,
    { error: "unknown field 'colour'", field: 'colour' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/webhooks', { token: alice.token, body: {} }),
    400,
    { error: "'url' is required", field: 'url' },
  )
  expectJson(
    await app.call('POST', '/api/projects/web/webhooks', {
      token: alice.token,
      body: { url, events: 'ticket.created' },
    }),
    400,
    { error: "'events' must be a list of event kinds", field: 'events' },
  )
  expectJson(
    await app.call('POST', '/api/projects/web/webhooks', {
      token: alice.token,
      body: { url, events: ['ticket.closed'] },
    }),
    400,
    { error: "unknown event kind 'ticket.closed'", field: 'events' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/webhooks', { token: alice.token, body: { url } }),
    404,
    { error: 'no such project' },
  )
  expectJson(
    await app.call('POST', '/api/projects/web/webhooks', { token: bob.token, body: { url } }),
    403,
    { error: 'this needs role admin', field: 'project' },
  )
  expectJson(await app.call('GET', '/api/projects/web/webhooks', { token: bob.token }), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
  for (const bad of [
    'ftp://example.com/hook',
    'https://user:pw@example.com/',
    'https://example.com/#x',
    'example.com',
    `https://example.com/${'a'.repeat(2000)}`,
  ]) {
    const refused = await app.call('POST', '/api/projects/web/webhooks', {
      token: alice.token,
      body: { url: bad },
    })
    expectJson(refused, 400)
    assert.equal(refused.body.field, 'url', bad)
  }
  expectJson(
    await app.call('POST', '/api/projects/web/webhooks/abcdefabcdef/test', { token: alice.token }),
    404,
    { error: 'no such webhook in this project' },
  )
  expectJson(
    await app.call('GET', '/api/projects/web/webhooks/constructor/deliveries', {
      token: alice.token,
    }),
    404,
    { error: 'no such webhook in this project' },
  )
})

test('a target on 127.0.0.1 is refused without WEBHOOK_ALLOW_PRIVATE=1, when added and when sent', async () => {
  const strict = await app.another({})
  for (const url of [
    'http://127.0.0.1:9/hook',
    'http://localhost:9/hook',
    'http://[::1]:9/',
    'http://10.1.2.3/',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:127.0.0.1]/',
  ]) {
    const refused = await strict('POST', '/api/projects/web/webhooks', {
      token: alice.token,
      body: { url },
    })
    expectJson(refused, 400)
    assert.equal(refused.body.field, 'url')
    assert.match(
      refused.body.error,
      /^'url' cannot be used: the address is not on the public internet/,
      url,
    )
  }
  // Added where private targets are allowed, then sent by a process where they are not: the
  // address is checked again at send time, and nothing reaches the receiver.
  const made = await addWebhook('web', { url: receiver.url('/strict') })
  await worker.close()
  try {
    await strict.service.webhooks.settled()
    const sent = await strict('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
      token: alice.token,
    })
    expectJson(sent, 202)
    await until(async () => (await log('web', made.webhook.id))[0]!.attempts === 1)
    const [entry] = await log('web', made.webhook.id)
    assert.equal(entry!.status, null)
    assert.match(entry!.error!, /not on the public internet/)
    assert.equal(receiver.at('/strict').length, 0)
  } finally {
    await strict.service.webhooks.close()
    await replaceWorker()
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('waited in vain')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

test('every change is delivered in order, signed so that standardwebhooks verifies it', async () => {
  const made = await addWebhook('web', { url: receiver.url('/all') })
  const ticket = await app.ticket(alice, 'web', { subject: 'Login page broken' })
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/comments`, {
    token: bob.token,
    body: { text: 'Seen it too' },
  })
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/state`, {
    token: alice.token,
    body: { state: 'doing' },
  })
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/assign`, {
    token: alice.token,
    body: { assignee: 'bob' },
  })
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/edit`, {
    token: alice.token,
    body: { summary: 'Since Tuesday' },
  })
  const other = await app.ticket(alice, 'web', { subject: 'Footer' })
  await app.call('POST', `/api/projects/web/tickets/${other.number}/parent`, {
    token: alice.token,
    body: { parent: ticket.ref },
  })
  await app.call('POST', '/api/projects/web/members/remove', {
    token: alice.token,
    body: { user: bob.id },
  })
  await receiver.until(() => receiver.at('/all').length >= 9)
  const got = receiver.at('/all')
  const types = got.map((r) => r.json.type)
  // The project's order: each kind first arrives after the ones written before it.
  const order = [
    'ticket.created',
    'ticket.commented',
    'ticket.state_changed',
    'ticket.assigned',
    'ticket.edited',
    'ticket.related',
    'member.changed',
  ]
  const firsts = order.map((t) => types.indexOf(t))
  assert.ok(
    firsts.every((at, i) => at >= 0 && (i === 0 || at > firsts[i - 1]!)),
    types.join(', '),
  )
  assert.deepEqual(types.slice(0, 2), ['ticket.created', 'ticket.commented'])
  assert.equal(types.at(-1), 'member.changed')
  for (const r of got) {
    assert.deepEqual(verifyWith(made.secret, r), r.json)
    assert.match(r.id, /^msg_/)
    assert.equal(r.headers['content-type'], 'application/json')
    assert.match(r.json.timestamp, /^\d{4}-\d\d-\d\dT/)
  }
  assert.equal(new Set(got.map((r) => r.id)).size, got.length)
  const created = got[0]!.json.data
  assert.equal(created.ticket.ref, ticket.ref)
  assert.equal(created.ticket.subject, 'Login page broken')
  assert.deepEqual(created.project, { id: web.id, slug: 'web' })
  const comment = got[1]!.json.data
  assert.equal(comment.event.kind, 'comment')
  assert.equal(comment.event.text, 'Seen it too')
  assert.equal(comment.ticket.id, ticket.id)
  // The log records a delivery once its answer is back, a moment after the receiver has it.
  let entries = await log('web', made.webhook.id)
  await until(async () => {
    entries = await log('web', made.webhook.id)
    return entries.every((e) => e.state === 'delivered')
  })
  assert.equal(entries.length, got.length)
  assert.ok(entries.every((e) => e.state === 'delivered' && e.status === 204 && e.attempts === 1))
  await app.member(alice, 'web', bob, 'edit')
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a webhook hears only the kinds it asked for; while paused its deliveries wait, and go in order when resumed', async () => {
  const made = await addWebhook('web', {
    url: receiver.url('/kinds'),
    events: ['ticket.commented'],
  })
  const ticket = await app.ticket(alice, 'web')
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/comments`, {
    token: alice.token,
    body: { text: 'one' },
  })
  await receiver.until(() => receiver.at('/kinds').length === 1)
  const paused = await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}`, {
    token: alice.token,
    body: { active: false },
  })
  expectJson(paused, 200)
  assert.equal(paused.body.webhook.active, false)
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/comments`, {
    token: alice.token,
    body: { text: 'two' },
  })
  await app.call('POST', `/api/projects/web/tickets/${ticket.number}/comments`, {
    token: alice.token,
    body: { text: 'three' },
  })
  await until(async () => (await log('web', made.webhook.id)).length === 3)
  await worker.settled()
  assert.equal(receiver.at('/kinds').length, 1)
  const resumed = await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}`, {
    token: alice.token,
    body: { active: 'true' },
  })
  assert.equal(resumed.body.webhook.active, true)
  await receiver.until(() => receiver.at('/kinds').length === 3)
  assert.deepEqual(
    receiver.at('/kinds').map((r) => r.json.data.event.text),
    ['one', 'two', 'three'],
  )
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('Send test event delivers a webhook.test; Redeliver sends the same message again with the same webhook-id', async () => {
  const made = await addWebhook('web', { url: receiver.url('/test') })
  const sent = await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
    token: alice.token,
  })
  expectJson(sent, 202)
  assert.equal(sent.body.delivery.type, 'webhook.test')
  await receiver.until(() => receiver.at('/test').length === 1)
  const first = receiver.at('/test')[0]!
  assert.equal(first.json.type, 'webhook.test')
  assert.equal(first.json.data.webhook.id, made.webhook.id)
  verifyWith(made.secret, first)
  await until(async () => (await log('web', made.webhook.id))[0]!.state === 'delivered')
  const [entry] = await log('web', made.webhook.id)
  const again = await app.call(
    'POST',
    `/api/projects/web/webhooks/${made.webhook.id}/deliveries/${entry!.id}/redeliver`,
    { token: alice.token },
  )
  expectJson(again, 202)
  await receiver.until(() => receiver.at('/test').length === 2)
  const second = receiver.at('/test')[1]!
  assert.equal(second.id, first.id)
  assert.equal(second.body, first.body)
  verifyWith(made.secret, second)
  expectJson(
    await app.call(
      'POST',
      `/api/projects/web/webhooks/${made.webhook.id}/deliveries/999999/redeliver`,
      { token: alice.token },
    ),
    404,
    { error: 'no such delivery of this webhook' },
  )
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a receiver that answers 500 three times then 200 gets the retries at the back-off, with one webhook-id', async () => {
  const made = await addWebhook('web', { url: receiver.url('/flaky') })
  receiver.setAnswer((r) =>
    r.path === '/flaky' && receiver.at('/flaky').length <= 3
      ? { status: 500, body: 'down for maintenance' }
      : { status: 204 },
  )
  try {
    const start = clock()
    await app.ticket(alice, 'web', { subject: 'Retried' })
    await receiver.until(() => receiver.at('/flaky').length === 1)
    const seen: number[] = []
    for (const wait of RETRY_WAITS_MS.slice(0, 3)) {
      await until(
        async () =>
          (await log('web', made.webhook.id))[0]?.attempts === receiver.at('/flaky').length,
      )
      // Not before its time: nothing more is sent until the clock reaches the back-off.
      offset += wait - 1000
      worker.poke()
      await worker.settled()
      assert.equal(receiver.at('/flaky').length, seen.length + 1)
      offset += 1000
      worker.poke()
      await receiver.until(() => receiver.at('/flaky').length === seen.length + 2)
      seen.push(wait)
    }
    await until(async () => (await log('web', made.webhook.id))[0]?.state === 'delivered')
    const got = receiver.at('/flaky')
    assert.equal(got.length, 4)
    assert.equal(new Set(got.map((r) => r.id)).size, 1)
    assert.ok(got.every((r) => signedWith(made.secret, r)))
    const stamps = got.map((r) => Number(r.headers['webhook-timestamp']) * 1000 - start)
    // 5 s, 5 min, 30 min apart (random 0.5 is no jitter), to the second.
    for (let i = 1; i < 4; i++)
      assert.ok(
        Math.abs(stamps[i]! - stamps[i - 1]! - RETRY_WAITS_MS[i - 1]!) < 2000,
        `attempt ${i + 1} came ${stamps[i]! - stamps[i - 1]!} ms after the one before`,
      )
    const [entry] = await log('web', made.webhook.id)
    assert.equal(entry!.attempts, 4)
    assert.equal(entry!.status, 204)
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
    offset = 0
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a 410 disables the webhook, and the settings show why', async () => {
  const made = await addWebhook('web', { url: receiver.url('/gone') })
  receiver.setAnswer((r) => (r.path === '/gone' ? { status: 410 } : { status: 204 }))
  try {
    await app.ticket(alice, 'web', { subject: 'Gone' })
    await until(
      async () =>
        (
          await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
        ).body.webhooks.find((w: { id: string }) => w.id === made.webhook.id).active === false,
    )
    const listed = (
      await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
    ).body.webhooks.find((w: { id: string }) => w.id === made.webhook.id)
    assert.equal(listed.disabled, GONE_REASON)
    await app.ticket(alice, 'web', { subject: 'Not sent' })
    await worker.settled()
    assert.equal(receiver.at('/gone').length, 1)
    const page = await app.call('GET', '/web/settings', {
      headers: { cookie: alice.cookie, accept: 'text/html' },
    })
    assert.match(page.text, /Disabled: the receiver answered 410 Gone/)
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('after 3 days of failures a webhook is disabled', async () => {
  const made = await addWebhook('web', { url: receiver.url('/dead') })
  receiver.setAnswer((r) => (r.path === '/dead' ? { status: 503 } : { status: 204 }))
  try {
    await app.ticket(alice, 'web', { subject: 'Never arrives' })
    await receiver.until(() => receiver.at('/dead').length === 1)
    for (let i = 0; i < 20 && receiver.at('/dead').length < 20; i++) {
      const n = receiver.at('/dead').length
      await until(async () => (await log('web', made.webhook.id))[0]?.attempts === n)
      const [entry] = await log('web', made.webhook.id)
      if (entry!.state === 'failed') break
      offset += 10 * 60 * 60 * 1000
      worker.poke()
      await receiver.until(() => receiver.at('/dead').length === n + 1)
    }
    await until(async () => (await log('web', made.webhook.id))[0]?.state === 'failed')
    const attempts = receiver.at('/dead').length
    assert.ok(attempts >= 8 && attempts <= 12, `${attempts} attempts`)
    const listed = (
      await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
    ).body.webhooks.find((w: { id: string }) => w.id === made.webhook.id)
    assert.equal(listed.active, false)
    assert.equal(listed.disabled, FAILED_REASON)
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
    offset = 0
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a target that never answers does not delay another webhook of the project', async () => {
  const slow = await addWebhook('web', { url: receiver.url('/slow') })
  const quick = await addWebhook('web', { url: receiver.url('/quick') })
  receiver.setAnswer((r) =>
    r.path === '/slow' ? { status: 200, delayMs: Infinity } : { status: 204 },
  )
  try {
    for (const subject of ['one', 'two', 'three']) await app.ticket(alice, 'web', { subject })
    await receiver.until(() => receiver.at('/quick').length === 3, 5000)
    assert.equal(receiver.at('/slow').length, 1)
    assert.deepEqual(
      receiver.at('/quick').map((r) => r.json.data.ticket.subject),
      ['one', 'two', 'three'],
    )
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
  }
  await app.call('POST', `/api/projects/web/webhooks/${slow.webhook.id}/remove`, {
    token: alice.token,
  })
  await app.call('POST', `/api/projects/web/webhooks/${quick.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a service stops at once while a target keeps a delivery unanswered; the next start sends it again, with the same webhook-id', async () => {
  const made = await addWebhook('web', { url: receiver.url('/stuck') })
  receiver.setAnswer((r) =>
    r.path === '/stuck' && receiver.at('/stuck').length === 1
      ? { status: 200, delayMs: Infinity }
      : { status: 204 },
  )
  try {
    await app.ticket(alice, 'web', { subject: 'held at the stop' })
    await receiver.until(() => receiver.at('/stuck').length === 1, 5000)
    const started = performance.now()
    await worker.close()
    const took = performance.now() - started
    // The send's own limit is 10 s; the stop does not wait for it.
    assert.ok(took < 3000, `the worker stopped in ${Math.round(took)} ms`)
    const [entry] = await log('web', made.webhook.id)
    assert.deepEqual(
      { state: entry!.state, attempts: entry!.attempts },
      { state: 'pending', attempts: 0 },
      'a send cut by the stop is not counted as an attempt',
    )
    await replaceWorker()
    await receiver.until(() => receiver.at('/stuck').length === 2, 5000)
    const [first, again] = receiver.at('/stuck')
    assert.equal(again!.id, first!.id)
    await until(async () => (await log('web', made.webhook.id))[0]?.state === 'delivered')
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a dozen sends under way at once raise no warning of a listener leak', async () => {
  const warnings: string[] = []
  const heard = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', heard)
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) => addWebhook('web', { url: receiver.url(`/dozen-${i}`) })),
  )
  receiver.setAnswer((r) =>
    r.path.startsWith('/dozen-') ? { status: 204, delayMs: 300 } : { status: 204 },
  )
  try {
    await app.ticket(alice, 'web', { subject: 'told twelve times' })
    await receiver.until(
      () => receiver.received.filter((r) => r.path.startsWith('/dozen-')).length === 12,
    )
    await worker.settled()
    // A warning is emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(warnings, [])
  } finally {
    process.off('warning', heard)
    receiver.setAnswer(() => ({ status: 204 }))
  }
  for (const { webhook } of made)
    await app.call('POST', `/api/projects/web/webhooks/${webhook.id}/remove`, {
      token: alice.token,
    })
})

test('a redirect is not followed: it counts as a failed attempt', async () => {
  const made = await addWebhook('web', { url: receiver.url('/moved') })
  receiver.setAnswer((r) =>
    r.path === '/moved'
      ? { status: 302, headers: { location: receiver.url('/elsewhere') } }
      : { status: 204 },
  )
  try {
    await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
      token: alice.token,
    })
    await until(async () => (await log('web', made.webhook.id))[0]?.attempts === 1)
    const [entry] = await log('web', made.webhook.id)
    assert.equal(entry!.status, 302)
    assert.equal(entry!.state, 'pending')
    assert.equal(receiver.at('/elsewhere').length, 0)
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('the log keeps the first 1 KB of an answer', async () => {
  const made = await addWebhook('web', { url: receiver.url('/chatty') })
  receiver.setAnswer((r) =>
    r.path === '/chatty' ? { status: 200, body: 'é'.repeat(2000) } : { status: 204 },
  )
  try {
    await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
      token: alice.token,
    })
    await until(async () => (await log('web', made.webhook.id))[0]?.state === 'delivered')
    const [entry] = await log('web', made.webhook.id)
    assert.equal(Buffer.byteLength(entry!.answer!), 1024)
    assert.ok(entry!.durationMs! >= 0)
  } finally {
    receiver.setAnswer(() => ({ status: 204 }))
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a rotated secret signs beside the new one for 24 hours, then only the new one signs', async () => {
  const made = await addWebhook('web', { url: receiver.url('/rotate') })
  const rotated = await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/rotate`, {
    token: alice.token,
  })
  expectJson(rotated, 200)
  const fresh = rotated.body.secret as string
  assert.notEqual(fresh, made.secret)
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
    token: alice.token,
  })
  await receiver.until(() => receiver.at('/rotate').length === 1)
  const during = receiver.at('/rotate')[0]!
  verifyWith(made.secret, during)
  verifyWith(fresh, during)
  offset += 24 * 60 * 60 * 1000 + 1000
  try {
    await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/test`, {
      token: alice.token,
    })
    await receiver.until(() => receiver.at('/rotate').length === 2)
    const later = receiver.at('/rotate')[1]!
    assert.ok(signedWith(fresh, later))
    assert.ok(!signedWith(made.secret, later))
  } finally {
    offset = 0
  }
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})

test('a project has at most 20 webhooks', async () => {
  const ops = await app.project(alice, 'Ops')
  const ids: string[] = []
  for (let i = 0; i < 20; i++)
    ids.push((await addWebhook(ops.slug, { url: receiver.url(`/many/${i}`) })).webhook.id)
  expectJson(
    await app.call('POST', `/api/projects/${ops.slug}/webhooks`, {
      token: alice.token,
      body: { url: receiver.url('/many/21') },
    }),
    400,
    { error: 'a project has at most 20 webhooks: remove one first', field: 'url' },
  )
  await app.call('POST', `/api/projects/${ops.slug}/webhooks/${ids[0]}/remove`, {
    token: alice.token,
  })
  await addWebhook(ops.slug, { url: receiver.url('/many/21') })
})

test('a connected app registers its own webhook with its project key, and sees and removes only its own', async () => {
  const admins = await addWebhook('web', { url: receiver.url('/admins') })
  const key = await connectApp()
  const own = await addWebhook(
    'web',
    { url: receiver.url('/app'), events: ['ticket.created'] },
    key,
  )
  const listed = await app.call('GET', '/api/projects/web/webhooks', { token: key })
  expectJson(listed, 200)
  assert.deepEqual(
    listed.body.webhooks.map((w: { id: string }) => w.id),
    [own.webhook.id],
  )
  expectJson(
    await app.call('POST', `/api/projects/web/webhooks/${admins.webhook.id}/remove`, {
      token: key,
    }),
    404,
    { error: 'no such webhook in this project' },
  )
  const other = await app.project(alice, 'Elsewhere')
  expectJson(await app.call('GET', `/api/projects/${other.slug}/webhooks`, { token: key }), 403, {
    error: 'this project key belongs to another project',
    field: 'project',
  })
  await app.ticket(alice, 'web', { subject: 'For the app' })
  await receiver.until(() => receiver.at('/app').length === 1)
  verifyWith(own.secret, receiver.at('/app')[0]!)
  // The admin sees the app's webhook; removing the connection removes it.
  const all = await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
  assert.ok(
    all.body.webhooks.some(
      (w: { id: string; connection: string | null }) =>
        w.id === own.webhook.id && w.connection !== null,
    ),
  )
  const connections = await app.call('GET', '/api/projects/web/connections')
  await app.call('POST', '/api/projects/web/connections/remove', {
    token: alice.token,
    body: { id: connections.body.connections[0].id },
  })
  const after = await app.call('GET', '/api/projects/web/webhooks', { token: alice.token })
  assert.ok(!after.body.webhooks.some((w: { id: string }) => w.id === own.webhook.id))
  await app.call('POST', `/api/projects/web/webhooks/${admins.webhook.id}/remove`, {
    token: alice.token,
  })
})

/** Connects an app to `web` as alice (docs/connect-apps.md); answers its project key. */
async function connectApp(): Promise<string> {
  const start = await app.call(
    'GET',
    `/connect?app=bot&label=Bot&return=${encodeURIComponent('https://bot.example.com/back')}&state=s`,
  )
  const nonce = String(start.headers.location).split('/').pop()!
  const confirmed = await app.call('POST', `/api/connect/${nonce}/confirm`, {
    token: alice.token,
    body: { project: 'web' },
  })
  const code = new URL(confirmed.body.location).searchParams.get('code')!
  const exchanged = await app.call('POST', '/api/connect/exchange', { body: { code } })
  return exchanged.body.key
}

test('an upload is delivered as file.attached with the file as the list shows it, and is the live event fileAttached', async () => {
  const made = await addWebhook('web', { url: receiver.url('/files'), events: ['file.attached'] })
  const live = await app.call('GET', '/api/live?project=web', { token: alice.token })
  const uploaded = await app.call('POST', '/api/projects/web/files?name=crash.log', {
    token: alice.token,
    raw: 'panic: nil map\n',
    headers: { 'content-type': 'text/plain' },
  })
  assert.equal(uploaded.status, 201, uploaded.text)
  await receiver.until(() => receiver.at('/files').length === 1)
  const [message] = receiver.at('/files')
  assert.deepEqual(verifyWith(made.secret, message!), message!.json)
  assert.equal(message!.json.type, 'file.attached')
  const file = message!.json.data.file
  assert.deepEqual(message!.json.data.project, { id: web.id, slug: 'web' })
  assert.deepEqual(
    { id: file.id, name: file.name, size: file.size, url: file.url, by: file.by },
    {
      id: uploaded.body.file.id,
      name: 'crash.log',
      size: 15,
      url: uploaded.body.file.url,
      by: 'alice',
    },
  )
  const events = await app.call(
    'GET',
    `/api/live?project=web&after=${encodeURIComponent(String(live.body.cursor))}`,
    { token: alice.token },
  )
  assert.deepEqual(
    events.body.events.map((e: { name: string; args: { id: string }[] }) => [
      e.name,
      e.args[0]!.id,
    ]),
    [['fileAttached', uploaded.body.file.id]],
  )
  await app.call('POST', `/api/projects/web/webhooks/${made.webhook.id}/remove`, {
    token: alice.token,
  })
})
