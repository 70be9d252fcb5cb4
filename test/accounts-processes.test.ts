// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * The built-in provider and both services in two processes on one database, as behind a load
 * balancer (issue 35, points 2, 4 and 11): what one process does to a person holds at the other
 * on the next request. Disabling a person stops the project keys they confirmed and removes
 * those keys' webhooks; a password change or reset ends every other session of the person;
 * failed passwords counted at one process count at the other; and the sessions of one person
 * at both processes count on one bucket of the rate limits.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testDatabase } from './support/db.ts'
import { until } from './support/wait.ts'
import { FREE_FAILURES } from '../src/accounts/attempts.ts'
import { startCommand } from './support/start-command.ts'

const db = await testDatabase()
const { sql } = db
const APP = fileURLToPath(new URL('./support/app-process.ts', import.meta.url))

interface Process {
  notes: string
  tickets: string
  idp: string
}

/** How to stop each process started, whether or not it got as far as listening. */
const stops: (() => Promise<void>)[] = []
const stopProcesses = () => Promise.all(stops.splice(0).map((stop) => stop()))
after(stopProcesses)

/**
 * The file's set-up at its top level: when it throws, node's test runner runs no `after` hook,
 * and the processes started (their pipes open) would keep this file running until the runner's
 * limit; so they are stopped here before the error goes on.
 */
async function settingUp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    await stopProcesses()
    throw error
  }
}

async function startProcess(): Promise<Process> {
  const env = {
    ...process.env,
    APP_SCHEMA: db.schema,
    APP_PROVIDER: 'accounts',
    APP_RATE_LIMIT: '0.001,1000',
  }
  const child = spawn(process.execPath, startCommand(APP), {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  stops.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  const first = await Promise.race([
    new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    ),
    exited.then((code) => {
      throw new Error(`app process exited with ${code} before listening`)
    }),
  ])
  return JSON.parse(first) as Process
}

const [a, b] = await settingUp(() => Promise.all([startProcess(), startProcess()]))

interface Page {
  status: number
  location: string | null
  text: string
  res: Response
}

/** A browser: cookies per origin, the last page's form token, addresses people see (localhost) fetched at 127.0.0.1. */
function browser() {
  const jars = new Map<string, Map<string, string>>()
  let csrf = ''
  const local = (url: string) => url.replace('//localhost:', '//127.0.0.1:')
  async function go(
    url: string,
    init: {
      method?: string
      form?: Record<string, string>
      headers?: Record<string, string>
      body?: string
    } = {},
  ): Promise<Page> {
    const target = new URL(local(url))
    const jar = jars.get(target.origin) ?? new Map<string, string>()
    jars.set(target.origin, jar)
    const headers: Record<string, string> = { ...init.headers }
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    let body = init.body
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams({ csrf, ...init.form }).toString()
    }
    const res = await fetch(target, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      if (/Max-Age=0/.test(line)) jar.delete(pair!.slice(0, eq))
      else jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    const text = await res.text()
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1]
    if (token) csrf = token
    return { status: res.status, location: res.headers.get('location'), text, res }
  }
  return {
    go,
    cookie: (origin: string, name: string) => jars.get(new URL(local(origin)).origin)?.get(name),
    /**
     * Presses Sign in at the app at `app`: through its provider (the password form when not
     * signed in there) and back; answers the callback's page.
     */
    async signIn(app: string, name: string, password: string): Promise<Page> {
      const start = await go(`${app}/login?next=/`)
      assert.equal(start.status, 302, start.text)
      let atProvider = await go(start.location!)
      if (atProvider.status === 200) {
        const url = new URL(start.location!)
        // The built-in provider's links carry no key; the form sends one only when the link did.
        const key = url.searchParams.get('key')
        atProvider = await go(`${url.origin}/login`, {
          form: {
            ...(key === null ? {} : { key }),
            return: url.searchParams.get('return')!,
            name,
            password,
          },
        })
      }
      assert.equal(atProvider.status, 303, atProvider.text)
      const back = await go(atProvider.location!)
      assert.equal(back.status, 302, back.text)
      return back
    },
  }
}

/** The signed-in user of a service as `GET /api/me` answers it, or null. */
async function me(person: ReturnType<typeof browser>, app: string): Promise<string | null> {
  const page = await person.go(`${app}/api/me`)
  assert.equal(page.status, 200, page.text)
  const body = JSON.parse(page.text) as { user: string | { id: string } | null }
  return body.user === null ? null : typeof body.user === 'string' ? body.user : body.user.id
}

// The owner account, and a sign-up link for the others, at process A.
const owner = browser()
const link = await settingUp(async () => {
  const form = await owner.go(`${a.idp}/login`)
  assert.equal(form.status, 200, form.text)
  const setup = await owner.go(`${a.idp}/setup`, {
    form: { name: 'owner', password: 'owner password' },
  })
  assert.equal(setup.status, 303, setup.text)
  await owner.go(`${a.idp}/admin`)
  const made = await owner.go(`${a.idp}/admin/signup-links`, { form: { uses: '10', days: '7' } })
  const shown = /id="made-link">([^<]+)</.exec(made.text)
  assert.ok(shown, made.text)
  return new URL(shown[1]!).searchParams.get('link')!
})

/** A new account made through the link at process A. */
async function account(name: string, password: string) {
  const person = browser()
  await person.go(`${a.idp}/signup?link=${link}`)
  const made = await person.go(`${a.idp}/signup`, { form: { link, name, password } })
  assert.equal(made.status, 303, made.text)
  const [row] = await sql<{ id: string }[]>`select id from idp_accounts where name = ${name}`
  return { person, id: row!.id }
}

/** The tracker's tag of the person's session at `app` (for writes made with the cookie). */
async function tagOf(person: ReturnType<typeof browser>, app: string): Promise<string> {
  return (JSON.parse((await person.go(`${app}/api/me`)).text) as { tag: string }).tag
}

/** A JSON request to the tracker, with a bearer secret. */
async function api(app: string, method: string, path: string, secret: string, body?: unknown) {
  const res = await fetch(`${app.replace('//localhost:', '//127.0.0.1:')}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text) }
}

test('2: disabling a person at one process stops, at the other, the project key they confirmed, and removes its webhooks', async () => {
  const { person: alice, id: aliceId } = await account('alice', 'alice password')
  await alice.signIn(a.tickets, 'alice', 'alice password')
  await alice.signIn(b.notes, 'alice', 'alice password')
  // alice's user token, made with her session, and a project of hers.
  const tag = await tagOf(alice, a.tickets)
  const made = await alice.go(`${a.tickets}/api/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tag': tag },
    body: JSON.stringify({ label: 'cli' }),
  })
  assert.equal(made.status, 201, made.text)
  const token = (JSON.parse(made.text) as { token: string }).token
  const project = await api(a.tickets, 'POST', '/api/projects', token, { title: 'Alice project' })
  assert.equal(project.status, 201, JSON.stringify(project.body))
  const { slug, id: projectId } = project.body.project as { slug: string; id: string }
  // A connected app's key that alice confirmed, as the connect exchange stores it.
  const key = `tk_${randomBytes(32).toString('base64url')}`
  const [user] = await sql<{ id: string }[]>`select id from users where idp_id = ${aliceId}`
  await sql`insert into connections (id, project_id, user_id, app, label, hash, created)
    values ('conn-alice', ${projectId}, ${user!.id}, 'https://app.example', 'Alice app', ${createHash('sha256').update(key).digest('hex')}, ${Date.now()})`
  assert.equal(
    (await api(b.tickets, 'POST', `/api/projects/${slug}/tickets`, key, { subject: 'by the key' }))
      .status,
    201,
  )
  const hook = await api(b.tickets, 'POST', `/api/projects/${slug}/webhooks`, key, {
    url: 'https://93.184.215.14/hook',
    events: ['ticket.created'],
  })
  assert.equal(hook.status, 201, JSON.stringify(hook.body))

  await owner.go(`${a.idp}/admin`)
  assert.equal(
    (await owner.go(`${a.idp}/admin/people/${aliceId}/disable`, { form: {} })).status,
    303,
  )

  // The finding: the key still created tickets as alice and added webhooks.
  assert.deepEqual(
    await api(b.tickets, 'POST', `/api/projects/${slug}/tickets`, key, { subject: 'after' }),
    { status: 401, body: { error: 'bad or revoked token' } },
  )
  assert.equal(
    (
      await api(b.tickets, 'POST', `/api/projects/${slug}/webhooks`, key, {
        url: 'https://93.184.215.14/other',
        events: ['ticket.created'],
      })
    ).status,
    401,
  )
  assert.equal((await api(b.tickets, 'GET', '/api/tokens', token)).status, 401)
  assert.equal(
    (await sql`select count(*)::int as n from webhooks where project_id = ${projectId}`)[0]!.n,
    0,
  )
  assert.equal(await me(alice, b.notes), null)
  assert.equal(await me(alice, a.tickets), null)
})

test('11: a password change at one process ends every other session of the person at both, and keeps the browser that changed it', async () => {
  const { person: here } = await account('bob', 'bob password')
  const there = browser()
  await there.signIn(b.notes, 'bob', 'bob password')
  await there.signIn(b.tickets, 'bob', 'bob password')
  await here.signIn(a.notes, 'bob', 'bob password')
  const bob = await me(there, b.notes)
  assert.notEqual(bob, null)

  await here.go(`${a.idp}/account`)
  const changed = await here.go(`${a.idp}/account/password`, {
    form: { current: 'bob password', password: 'a new bob password' },
  })
  assert.equal(changed.status, 303)
  const page = await here.go(`${a.idp}${changed.location}`)
  assert.match(
    page.text,
    /Your password is changed\. Every other place you were signed in, here and in the apps, is signed out\./,
  )
  // The other browser: signed out at the provider (B) and at both apps.
  assert.equal((await there.go(`${b.idp}/account`)).status, 303)
  assert.equal(await me(there, b.notes), null)
  assert.equal(await me(there, b.tickets), null)
  // The browser that changed it stays signed in at the provider.
  assert.equal((await here.go(`${b.idp}/account`.replace(b.idp, a.idp))).status, 200)
})

test("11: a reset link used at one process ends the apps' sessions and the user tokens too", async () => {
  const { person: carol, id: carolId } = await account('carol', 'carol password')
  await carol.signIn(b.tickets, 'carol', 'carol password')
  await carol.signIn(a.notes, 'carol', 'carol password')
  const tag = await tagOf(carol, b.tickets)
  const token = (
    JSON.parse(
      (
        await carol.go(`${b.tickets}/api/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tag': tag },
          body: JSON.stringify({ label: 'cli' }),
        })
      ).text,
    ) as { token: string }
  ).token
  await owner.go(`${a.idp}/admin`)
  const made = await owner.go(`${a.idp}/admin/people/${carolId}/reset`, { form: {} })
  const reset = new URL(/id="made-link">([^<]+)</.exec(made.text)![1]!).searchParams.get('link')!
  const elsewhere = browser()
  await elsewhere.go(`${b.idp}/reset?link=${reset}`)
  assert.equal(
    (
      await elsewhere.go(`${b.idp}/reset`, {
        form: { link: reset, password: 'a new carol password' },
      })
    ).status,
    303,
  )
  assert.equal(await me(carol, b.tickets), null)
  assert.equal(await me(carol, a.notes), null)
  assert.equal((await api(a.tickets, 'GET', '/api/tokens', token)).status, 401)
})

test('11: failed passwords counted at one process hold at the other', async () => {
  await account('dora', 'dora password')
  const guesser = browser()
  await guesser.go(`${a.idp}/login`)
  for (let i = 0; i < FREE_FAILURES; i++)
    assert.equal(
      (await guesser.go(`${a.idp}/login`, { form: { name: 'dora', password: `guess ${i}` } }))
        .status,
      400,
    )
  // The finding: at B the right password got 429 from its own count while A answered 303; now both count one.
  await guesser.go(`${b.idp}/login`)
  const atB = await guesser.go(`${b.idp}/login`, {
    form: { name: 'dora', password: 'dora password' },
  })
  assert.equal(atB.status, 429)
  assert.match(atB.text, /Too many sign-in attempts/)
})

test('4: the sessions of one person at both processes count on the one bucket of the person', async () => {
  const { id } = await account('erin', 'erin password')
  const first = browser()
  const second = browser()
  await first.signIn(a.tickets, 'erin', 'erin password')
  await second.signIn(b.tickets, 'erin', 'erin password')
  const userId = (await sql<{ id: string }[]>`select id from users where idp_id = ${id}`)[0]!.id
  for (let i = 0; i < 3; i++) {
    await first.go(`${a.tickets}/api/me`)
    await second.go(`${b.tickets}/api/me`)
  }
  // Each process sends its counts about once a second: the person's one row gathers all six.
  const row = createHash('sha256').update(`tickets\napi\nc\nuser:${userId}`).digest('base64url')
  await until(async () => {
    const [found] = await sql<
      { tokens: number }[]
    >`select tokens from rate_limits where key = ${row}`
    return found !== undefined && Number(found.tokens) <= 1000 - 6 + 0.1
  })
})
