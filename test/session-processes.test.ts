// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * Sessions across processes: two whole applications on one database, as behind a load balancer.
 * A sign-in renews the session id and a sign-out removes the session, and the other process
 * answers accordingly on the very next request: no process keeps a session in memory.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testDatabase } from './support/db.ts'
import { startCommand } from './support/start-command.ts'

const db = await testDatabase()
const APP = fileURLToPath(new URL('./support/app-process.ts', import.meta.url))

interface Process {
  notes: string
  tickets: string
}

async function startProcess(): Promise<Process> {
  const child = spawn(process.execPath, startCommand(APP), {
    env: { ...process.env, APP_SCHEMA: db.schema },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
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

const [a, b] = await Promise.all([startProcess(), startProcess()])

/** The `name=value` of the service's session cookie an answer sets; null when it sets none. */
function sessionCookie(res: Response, service: 'notes' | 'tickets'): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${service}_session=`))
  return set === undefined ? null : set.split(';')[0]!
}

/**
 * Signs `name` in on `base` the way a browser does, through the development provider, bringing
 * `cookie` when given; answers the callback's answer.
 */
async function signIn(base: string, name: string, cookie?: string): Promise<Response> {
  const start = await fetch(`${base}/login?next=/`, { redirect: 'manual' })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', name)
  const fromProvider = await fetch(atProvider, { redirect: 'manual' })
  // The public address may say localhost; the process listens on 127.0.0.1.
  const back = new URL(fromProvider.headers.get('location')!)
  const callback = new URL(`${back.pathname}${back.search}`, base)
  const res = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} })
  assert.equal(res.status, 302, await res.clone().text())
  assert.equal(await res.text(), 'logged in')
  return res
}

async function me(base: string, cookie: string): Promise<any> {
  const res = await fetch(`${base}/api/me`, { headers: { cookie } })
  assert.equal(res.status, 200)
  return res.json()
}

test('a sign-out on one notes process is answered as signed out by the other at once, and the old cookie names nothing', async () => {
  const cookie = sessionCookie(await signIn(a.notes, 'alice'), 'notes')!
  const alice = (await me(a.notes, cookie)).user
  assert.notEqual(alice, null)
  // Both processes have answered as alice (a process that kept sessions in memory has it now).
  assert.equal((await me(b.notes, cookie)).user, alice)
  const out = await fetch(`${a.notes}/logout`, { method: 'POST', headers: { cookie } })
  assert.equal(out.status, 200)
  assert.match(
    out.headers.get('set-cookie') ?? '',
    /^notes_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/,
  )
  assert.deepEqual(await me(b.notes, cookie), { user: null })
  assert.deepEqual(await me(a.notes, cookie), { user: null })
  const notes = await fetch(`${b.notes}/api/notes`, { headers: { cookie } })
  assert.equal(notes.status, 401)
})

test('a notes sign-in with a planted cookie answers a new cookie; the planted one holds nothing on either process', async () => {
  // An attacker's session: a cookie the service made, planted in the victim's browser.
  const failed = await fetch(`${a.notes}/login/callback`, { redirect: 'manual' })
  const planted = sessionCookie(failed, 'notes')!
  assert.deepEqual(await me(b.notes, planted), { user: null })
  const signedIn = await signIn(a.notes, 'victim', planted)
  const fresh = sessionCookie(signedIn, 'notes')
  assert.ok(fresh !== null && fresh !== planted, 'the sign-in answers a new cookie')
  const victim = (await me(b.notes, fresh)).user
  assert.notEqual(victim, null)
  assert.deepEqual(await me(b.notes, planted), { user: null })
  assert.deepEqual(await me(a.notes, planted), { user: null })
})

test('a tickets sign-out on one process is answered as signed out by the other at once', async () => {
  const signedIn = await signIn(a.tickets, 'carol')
  const cookie = sessionCookie(signedIn, 'tickets')!
  const mine = await me(a.tickets, cookie)
  assert.equal(mine.user.name, 'carol')
  assert.equal((await me(b.tickets, cookie)).user.name, 'carol')
  const page = await fetch(`${b.tickets}/`, { headers: { cookie } })
  assert.ok((await page.text()).includes('carol'))
  const out = await fetch(`${a.tickets}/logout`, {
    method: 'POST',
    headers: { cookie, 'x-tag': mine.tag },
  })
  assert.equal(out.status, 200)
  assert.match(out.headers.get('set-cookie') ?? '', /^tickets_session=; Max-Age=0;/)
  assert.equal((await me(b.tickets, cookie)).user, null)
  const tokens = await fetch(`${b.tickets}/api/tokens`, { headers: { cookie, 'x-tag': mine.tag } })
  assert.equal(tokens.status, 401)
})

test('a tickets sign-in renews the session id: the cookie brought to it names nothing afterwards', async () => {
  const first = sessionCookie(await signIn(a.tickets, 'dave'), 'tickets')!
  assert.equal((await me(b.tickets, first)).user.name, 'dave')
  // Another person signs in on the same browser, which brings the first cookie.
  const second = sessionCookie(await signIn(b.tickets, 'erin', first), 'tickets')
  assert.ok(second !== null && second !== first)
  assert.equal((await me(a.tickets, second)).user.name, 'erin')
  assert.equal((await me(a.tickets, first)).user, null)
  assert.equal((await me(b.tickets, first)).user, null)
})

test("deleting a person's session rows ends their sessions on every process at once", async () => {
  const notesCookie = sessionCookie(await signIn(a.notes, 'frank'), 'notes')!
  const ticketsCookie = sessionCookie(await signIn(b.tickets, 'frank'), 'tickets')!
  const notesUser = (await me(b.notes, notesCookie)).user
  const ticketsUser = (await me(a.tickets, ticketsCookie)).user.id
  assert.equal((await me(a.notes, notesCookie)).user, notesUser)
  assert.equal((await me(b.tickets, ticketsCookie)).user.id, ticketsUser)
  // What the identity provider does when it disables the account or signs it out everywhere.
  await db.sql`delete from sessions where (service = 'notes' and user_id = ${notesUser}) or (service = 'tickets' and user_id = ${ticketsUser})`
  for (const p of [a, b]) {
    assert.deepEqual(await me(p.notes, notesCookie), { user: null })
    assert.equal((await me(p.tickets, ticketsCookie)).user, null)
  }
})
