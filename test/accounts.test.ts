/**
 * The built-in identity provider (src/accounts/provider.ts) without a socket: first run, sign-in
 * and its limits, the forms' browser tokens, the exchange, what is stored, sign-up links, reset
 * links, disabling, "Sign out everywhere", and a project invite's context. The same schema
 * holds the ticket tracker (test/tickets/support.ts), as in a real install.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHandler } from '../src/http/handler.ts'
import { makeRequest } from '../src/http/request.ts'
import { bodyText } from '../src/http/response.ts'
import { createAccountsProvider } from '../src/accounts/provider.ts'
import { FREE_FAILURES, LONGEST_WAIT_MS } from '../src/accounts/attempts.ts'
import { hashPassword, verifyPassword } from '../src/accounts/password.ts'
import { hashSecret } from '../src/base/random.ts'
import { TEXT } from '../src/accounts/messages.ts'
import { testLogger } from './support/service.ts'
import { ticketsApp } from './tickets/support.ts'
import {
  formBrowser,
  NOTES,
  providerDeps,
  testAttempts,
  TICKETS,
  type Answer,
} from './support/accounts.ts'

const RETURN = `${NOTES}/login/callback`

const tickets = await ticketsApp()
const { sql, clock } = tickets
const SECRET = new Uint8Array(32).fill(3)
const provider = createAccountsProvider(
  providerDeps(sql, clock.now, SECRET, {
    attempts: testAttempts(sql, clock.now, SECRET),
    // A cheap hash: these tests sign in many times and test what the pages do, not scrypt's cost
    // (the hashing tests below hash at the real cost, and accounts-doors.test.ts signs in with it).
    passwordCost: { N: 1 << 10, r: 8, p: 1 },
  }),
)
const handler = createHandler(provider.routes, { name: 'idp', logger: testLogger() })

/** A browser: keeps its cookies, reads each page's form token, comes from `address`. */
const browser = (address = '10.0.0.1') => formBrowser(handler, address)

const login = `/login?key=dev-key&return=${encodeURIComponent(RETURN)}`
const request = { key: 'dev-key', return: RETURN }

/** The code in a redirect back to the app. */
function codeOf(answer: Answer): string {
  assert.equal(answer.status, 303, answer.text)
  const location = new URL(String(answer.headers.location))
  assert.equal(location.origin + location.pathname, RETURN)
  return location.searchParams.get('idp_code')!
}

async function exchange(code: string, secret = 'dev-secret') {
  const response = await handler(
    makeRequest({
      method: 'POST',
      url: '/api/exchange',
      body: JSON.stringify({ key: 'dev-key', secret, code }),
    }),
  )
  return { status: response.status, body: JSON.parse(await bodyText(response.body)) }
}

/** The refusal code of an exchange's answer. */
async function exchangeCode(code: string, secret = 'dev-secret') {
  const response = await handler(
    makeRequest({
      method: 'POST',
      url: '/api/exchange',
      body: JSON.stringify({ key: 'dev-key', secret, code }),
    }),
  )
  return { status: response.status, code: response.headers?.['x-error-code'] }
}

const owner = browser()

test('on the first run the sign-in page asks for the owner account, refusing a password under 8 characters', async () => {
  const page = await owner.get(login)
  assert.equal(page.status, 200)
  assert.match(page.text, /<h1>Create the owner account<\/h1>/)
  assert.match(page.text, /<label for="name">Name<\/label>/)
  assert.match(page.text, /Create account<\/button>/)
  const short = await owner.post('/setup', { ...request, name: 'Olivia', password: 'seven77' })
  assert.equal(short.status, 400)
  assert.match(short.text, /A password has at least 8 characters\./)
  const made = await owner.post('/setup', {
    ...request,
    name: 'Olivia',
    password: 'owner password',
  })
  const { status, body } = await exchange(codeOf(made))
  assert.equal(status, 200)
  assert.equal(body.name, 'Olivia')
  const [account] = await sql`select * from idp_accounts`
  assert.equal(account!.is_owner, true)
  assert.match(String(account!.password_hash), /^scrypt\$/)
  assert.doesNotMatch(String(account!.password_hash), /owner password/)
})

test('a second owner account cannot be made once one exists', async () => {
  const late = browser('10.0.0.9')
  await late.get('/login')
  const refused = await late.post('/setup', { name: 'Mallory', password: 'mallory password' })
  assert.equal(refused.status, 409)
  assert.match(refused.text, /The owner account exists already/)
  assert.equal((await sql`select count(*)::int as n from idp_accounts`)[0]!.n, 1)
})

test('a login code works once, only with the right secret, and not after 60 seconds', async () => {
  const code = codeOf(await owner.get(login))
  assert.deepEqual(await exchange(code, 'wrong'), {
    status: 401,
    body: { error: 'unknown app key or wrong secret' },
  })
  // A secret of another length, and one differing in its last character, alike.
  assert.equal((await exchange(code, 'dev-secret-longer')).status, 401)
  assert.equal((await exchange(code, 'dev-secreT')).status, 401)
  assert.equal((await exchangeCode(code, 'wrong')).code, 'bad_app_secret')
  assert.equal((await exchange(code)).status, 200)
  assert.equal((await exchangeCode(code)).code, 'login_failed')
  assert.deepEqual(await exchange(code), {
    status: 400,
    body: { error: 'login code unknown, used or expired' },
  })
  const late = codeOf(await owner.get(login))
  clock.advance(60_001)
  assert.equal((await exchange(late)).status, 400)
})

test('a person signed in at the provider goes back to the app at once, without the form', async () => {
  const again = await owner.get(login)
  assert.equal(again.status, 303)
  assert.ok(codeOf(again))
})

test('the provider session, login codes and links are stored only as their SHA-256', async () => {
  const cookie = owner.jar.get('idp_session')!
  const rows = await sql`select id_hash from idp_sessions`
  assert.ok(rows.some((r) => r.id_hash === hashSecret(cookie)))
  assert.ok(rows.every((r) => r.id_hash !== cookie))
  const code = codeOf(await owner.get(login))
  const codes = await sql`select code_hash from idp_codes`
  assert.ok(codes.some((r) => r.code_hash === hashSecret(code)))
})

test("a sign-in without a key, returning to a service, is that service's; its page's links carry no key", async () => {
  const stranger = browser('10.0.9.1')
  const page = await stranger.get(`/login?return=${encodeURIComponent(RETURN)}`)
  assert.equal(page.status, 200)
  assert.doesNotMatch(page.text, /key=|name="key"/)
  assert.match(page.text, /href="\/forgot\?return=/)
  const elsewhere = await stranger.get(
    `/login?return=${encodeURIComponent('https://evil.example/login/callback')}`,
  )
  assert.equal(elsewhere.status, 400)
})

test('the forgot-password page says to ask the owner for a reset link and leads back to the same sign-in', async () => {
  const page = await browser('10.0.9.2').get(`/forgot?return=${encodeURIComponent(RETURN)}`)
  assert.equal(page.status, 200)
  assert.match(page.text, /Ask the owner of this site for a reset link/)
  assert.match(
    page.text,
    new RegExp(`href="/login\\?return=${encodeURIComponent(RETURN).replace(/%/g, '%')}"`),
  )
})

test('a sign-in returning anywhere but the services, or with another app key, is refused', async () => {
  const stranger = browser()
  const elsewhere = await stranger.get(
    `/login?key=dev-key&return=${encodeURIComponent('https://evil.example/login/callback')}`,
  )
  assert.equal(elsewhere.status, 400)
  assert.match(elsewhere.text, /must return to one of this site&#39;s apps/)
  const key = await stranger.get(`/login?key=other&return=${encodeURIComponent(RETURN)}`)
  assert.equal(key.status, 400)
  assert.match(key.text, /app key is not known/)
})

test('the provider pages allow exactly the services origins in form-action', async () => {
  const page = await browser().get(login)
  assert.match(
    String(page.headers['content-security-policy']),
    /form-action 'self' http:\/\/localhost:3001 http:\/\/localhost:3002;/,
  )
})

test('a form without the token of its own browser is refused (login CSRF)', async () => {
  const victim = browser('10.0.0.2')
  await victim.get(login)
  const attacker = browser('10.0.0.3')
  await attacker.get(login)
  // The attacker's page posts the attacker's token from the victim's browser.
  victim.setCsrf(/name="csrf" value="([^"]+)"/.exec((await attacker.get(login)).text)![1]!)
  const forged = await victim.post('/login', {
    ...request,
    name: 'Olivia',
    password: 'owner password',
  })
  assert.equal(forged.status, 403)
  assert.match(forged.text, /<title>Form expired/)
  assert.match(forged.text, /This form has expired/)
  assert.equal(forged.headers['x-error-code'], 'form_expired')
})

test('a wrong password or unknown name says "wrong name or password" and nothing more', async () => {
  const someone = browser('10.0.0.4')
  await someone.get(login)
  const wrong = await someone.post('/login', {
    ...request,
    name: 'Olivia',
    password: 'not it at all',
  })
  const unknown = await someone.post('/login', {
    ...request,
    name: 'Nobody',
    password: 'owner password',
  })
  for (const answer of [wrong, unknown]) {
    assert.equal(answer.status, 400)
    assert.equal(answer.headers['x-error-code'], 'login_failed')
    assert.match(answer.text, /Wrong name or password\./)
  }
})

test('failed sign-ins slow down the address that fails, not another one, and are limited per address whatever the name', async () => {
  clock.advance(LONGEST_WAIT_MS)
  const guesser = browser('10.1.0.1')
  await guesser.get(login)
  for (let i = 0; i < FREE_FAILURES; i++)
    assert.equal(
      (await guesser.post('/login', { ...request, name: 'olivia', password: `guess ${i}` })).status,
      400,
    )
  // Then that address waits before each next try of the account: a second, then two, then four.
  const limited = await guesser.post('/login', {
    ...request,
    name: 'Olivia',
    password: 'owner password',
  })
  assert.equal(limited.status, 429)
  assert.equal(limited.headers['x-error-code'], 'too_many_attempts')
  assert.match(limited.text, /Too many sign-in attempts\. Try again in 1 seconds\./)
  clock.advance(1000)
  assert.equal(
    (await guesser.post('/login', { ...request, name: 'Olivia', password: 'guess more' })).status,
    400,
  )
  assert.match(
    (await guesser.post('/login', { ...request, name: 'Olivia', password: 'owner password' })).text,
    /Try again in 2 seconds/,
  )
  // Another address with no failures for the account signs in at once.
  const next = browser('10.1.1.1')
  await next.get(login)
  codeOf(await next.post('/login', { ...request, name: 'Olivia', password: 'owner password' }))

  const sprayer = browser('10.2.0.1')
  await sprayer.get(login)
  let status = 0
  for (let i = 0; i < 40 && status !== 429; i++)
    status = (
      await sprayer.post('/login', { ...request, name: `name ${i}`, password: 'password1' })
    ).status
  assert.equal(status, 429)
  // The address's wait holds for its other forms too, as one refusal.
  const reset = await sprayer.post('/reset', { link: 'unknown', password: 'a new password' })
  assert.equal(reset.status, 429)
  assert.equal(reset.headers['x-error-code'], 'too_many_attempts')
  assert.match(reset.text, /<title>Reset your password/)
  assert.match(reset.text, /Too many sign-in attempts\. Try again in \d+ seconds\./)
})

test('sign-up is closed by default; a link made on /admin works for its number of uses', async () => {
  const closed = await browser().get('/signup')
  assert.equal(closed.status, 403)
  assert.equal(closed.headers['x-error-code'], 'signup_closed')
  assert.match(closed.text, /<title>Sign-up/)
  assert.ok(closed.text.includes(TEXT.signUpClosed), closed.text)
  // The owner's forms carry the token of their provider session, given with the page.
  await owner.get('/admin')
  const admin = await owner.post('/admin/signup-links', { uses: '2', days: '7' })
  assert.equal(admin.status, 200)
  const url = /id="made-link">([^<]+)</.exec(admin.text)![1]!
  const link = new URL(url).searchParams.get('link')!
  const stored = await sql`select id_hash, uses_left from idp_signup_links`
  assert.deepEqual(
    stored.map((r) => [r.id_hash, r.uses_left]),
    [[hashSecret(link), 2]],
  )
  for (const name of ['Pat', 'Quinn']) {
    const person = browser(`10.3.0.${name.length}${name.charCodeAt(0)}`)
    assert.equal((await person.get(`/signup?link=${link}`)).status, 200)
    const made = await person.post('/signup', { link, name, password: `${name} password` })
    assert.equal(made.status, 303, made.text)
    assert.equal(made.headers.location, '/account')
  }
  const third = browser('10.3.1.1')
  const used = await third.get(`/signup?link=${link}`)
  assert.equal(used.status, 403)
  assert.equal(used.headers['x-error-code'], 'link_used')
  assert.match(used.text, /no longer valid: it was used up, it expired or the owner revoked it/)
})

test('the owner sees the open sign-up links on /admin and revokes one: its link is no longer valid', async () => {
  const made = await owner.post('/admin/signup-links', { uses: '5', days: '3' })
  const link = new URL(/id="made-link">([^<]+)</.exec(made.text)![1]!).searchParams.get('link')!
  const page = await owner.get('/admin')
  assert.match(page.text, /Open sign-up links/)
  const revokeAt = new RegExp(`action="/admin/signup-links/${hashSecret(link)}/revoke"`)
  assert.match(page.text, revokeAt)
  assert.match(page.text, /5 uses left/)
  const revoked = await owner.post(`/admin/signup-links/${hashSecret(link)}/revoke`, {})
  assert.equal(revoked.status, 303, revoked.text)
  assert.doesNotMatch((await owner.get('/admin')).text, revokeAt)
  const tried = await browser('10.3.2.1').get(`/signup?link=${link}`)
  assert.equal(tried.status, 403)
  assert.match(tried.text, /no longer valid/)
  assert.equal((await owner.post(`/admin/signup-links/${hashSecret(link)}/revoke`, {})).status, 404)
})

test('a project invite that brings a person to sign in names the project, the inviter and the role, and offers sign-up', async () => {
  const olivia = (await sql`select id from idp_accounts where is_owner`)[0]!.id as string
  const admin = await tickets.login('Olivia', olivia)
  const { slug } = await tickets.project(admin, 'Web site')
  const invite = await tickets.call('POST', `/api/projects/${slug}/invites`, {
    token: admin.token,
    body: { role: 'edit' },
  })
  assert.equal(invite.status, 201, invite.text)
  const returnTo = new URL(invite.body.url).searchParams.get('return')!
  assert.equal(new URL(returnTo).origin, TICKETS)
  const invited = browser('10.4.0.1')
  const page = await invited.get(`/login?key=dev-key&return=${encodeURIComponent(returnTo)}`)
  assert.equal(page.status, 200)
  assert.match(
    page.text,
    /<strong>Olivia<\/strong> invites you to the project <strong>Web site<\/strong> with the role <strong>edit<\/strong>/,
  )
  // The page leads with Create an account, and Sign in comes second.
  const create = page.text.indexOf('>Create an account</a>')
  assert.ok(
    create > 0 && create < page.text.indexOf('>Sign in</button>'),
    'Create an account comes before Sign in',
  )
  const signup = await invited.get(`/signup?key=dev-key&return=${encodeURIComponent(returnTo)}`)
  assert.equal(signup.status, 200)
  const joined = await invited.post('/signup', {
    key: 'dev-key',
    return: returnTo,
    name: 'Rita',
    password: 'rita password',
  })
  const back = new URL(String(joined.headers.location))
  assert.equal(back.searchParams.get('invite'), new URL(returnTo).searchParams.get('invite'))
  assert.equal((await exchange(back.searchParams.get('idp_code')!)).body.name, 'Rita')
})

test('a revoked project invite brings a person to a page saying it is no longer valid, and sign-up through it is refused', async () => {
  const olivia = (await sql`select id from idp_accounts where is_owner`)[0]!.id as string
  const admin = await tickets.login('Olivia', olivia)
  const { slug } = await tickets.project(admin, 'Revoked site')
  const invite = await tickets.call('POST', `/api/projects/${slug}/invites`, {
    token: admin.token,
    body: { role: 'use' },
  })
  assert.equal(invite.status, 201, invite.text)
  const returnTo = new URL(invite.body.url).searchParams.get('return')!
  assert.equal(
    (
      await tickets.call('POST', `/api/projects/${slug}/invites/${invite.body.id}/revoke`, {
        token: admin.token,
        body: {},
      })
    ).status,
    200,
  )
  const someone = browser('10.4.9.1')
  const page = await someone.get(`/login?return=${encodeURIComponent(returnTo)}`)
  assert.equal(page.status, 400)
  assert.match(page.text, /This invite is no longer valid: an admin of the project revoked it/)
  const signup = await someone.get(`/signup?return=${encodeURIComponent(returnTo)}`)
  assert.equal(signup.status, 403)
  assert.match(signup.text, /This invite is no longer valid/)
})

test('disabling an account ends its sessions at the provider and both services, revokes its ticket tokens, and refuses its sign-in', async () => {
  const pat = browser('10.5.0.1')
  await pat.get(login)
  codeOf(await pat.post('/login', { ...request, name: 'Pat', password: 'Pat password' }))
  const patId = (await sql`select id from idp_accounts where name = 'Pat'`)[0]!.id as string
  const inTickets = await tickets.login('Pat', patId)
  await sql`insert into sessions (id, service, user_id, created, expires) values ('notes-session-of-pat', 'notes', ${patId}, 0, ${Date.now() + 1e9})`
  const admin = await owner.get('/admin')
  assert.match(admin.text, /Pat/)
  const disabled = await owner.post(`/admin/people/${patId}/disable`, {})
  assert.equal(disabled.status, 303)
  assert.equal(
    (
      await sql`select count(*)::int as n from sessions where user_id in (${patId}, ${inTickets.id})`
    )[0]!.n,
    0,
  )
  assert.equal(
    (await sql`select count(*)::int as n from idp_sessions where account_id = ${patId}`)[0]!.n,
    0,
  )
  assert.equal((await tickets.call('GET', '/api/tokens', { token: inTickets.token })).status, 401)
  assert.equal(
    (await sql`select count(*)::int as n from tokens where user_id = ${inTickets.id}`)[0]!.n,
    0,
  )
  assert.equal((await pat.get('/account')).status, 303)
  await pat.get(login)
  assert.match(
    (await pat.post('/login', { ...request, name: 'Pat', password: 'Pat password' })).text,
    /Wrong name or password/,
  )
})

test('a reset link sets a new password once, and the old one stops working', async () => {
  const quinnId = (await sql`select id from idp_accounts where name = 'Quinn'`)[0]!.id as string
  const made = await owner.post(`/admin/people/${quinnId}/reset`, {})
  const link = new URL(/id="made-link">([^<]+)</.exec(made.text)![1]!).searchParams.get('link')!
  const quinn = browser('10.6.0.1')
  assert.equal((await quinn.get(`/reset?link=${link}`)).status, 200)
  const set = await quinn.post('/reset', { link, password: 'a new password' })
  assert.equal(set.status, 303)
  assert.equal(set.headers.location, '/account')
  const spent = await quinn.get(`/reset?link=${link}`)
  assert.equal(spent.status, 404)
  assert.equal(spent.headers['x-error-code'], 'no_such_reset_link')
  assert.match(spent.text, /<title>Reset your password/)
  assert.ok(spent.text.includes(TEXT.resetUnknown))
  assert.ok(spent.text.includes('<a href="/login">Sign in</a>'), spent.text)
  const stranger = browser('10.6.0.3')
  await stranger.get(login)
  const posted = await stranger.post('/reset', { link, password: 'another password' })
  assert.equal(posted.status, 404)
  assert.equal(posted.headers['x-error-code'], 'no_such_reset_link')
  assert.ok(posted.text.includes(TEXT.resetUnknown))
  const again = browser('10.6.0.2')
  await again.get(login)
  assert.equal(
    (await again.post('/login', { ...request, name: 'Quinn', password: 'Quinn password' })).status,
    400,
  )
  codeOf(await again.post('/login', { ...request, name: 'Quinn', password: 'a new password' }))
})

test('"Sign out everywhere" ends every session of the person, here and at both services', async () => {
  const quinnId = (await sql`select id from idp_accounts where name = 'Quinn'`)[0]!.id as string
  const quinn = browser('10.7.0.1')
  await quinn.get(login)
  codeOf(await quinn.post('/login', { ...request, name: 'Quinn', password: 'a new password' }))
  await sql`insert into sessions (id, service, user_id, created, expires) values ('notes-session-of-quinn', 'notes', ${quinnId}, 0, ${Date.now() + 1e9})`
  await quinn.get('/account')
  const out = await quinn.post('/account/signout-everywhere', {})
  assert.equal(out.status, 303)
  assert.equal(
    (await sql`select count(*)::int as n from sessions where user_id = ${quinnId}`)[0]!.n,
    0,
  )
  assert.equal(
    (await sql`select count(*)::int as n from idp_sessions where account_id = ${quinnId}`)[0]!.n,
    0,
  )
})

test('a password change asks for the current password', async () => {
  clock.advance(LONGEST_WAIT_MS)
  await owner.get('/account')
  const wrong = await owner.post('/account/password', {
    current: 'not mine at all',
    password: 'brand new password',
  })
  assert.equal(wrong.status, 400)
  assert.match(wrong.text, /The current password is wrong\./)
  const changed = await owner.post('/account/password', {
    current: 'owner password',
    password: 'brand new password',
  })
  assert.equal(changed.status, 303)
  const hash = (await sql`select password_hash from idp_accounts where is_owner`)[0]!
    .password_hash as string
  assert.equal(await verifyPassword('brand new password', hash), true)
})

test('only the owner sees /admin', async () => {
  const rita = browser('10.8.0.1')
  await rita.get(login)
  codeOf(await rita.post('/login', { ...request, name: 'Rita', password: 'rita password' }))
  const page = await rita.get('/admin')
  assert.equal(page.status, 403)
  assert.match(page.text, /Only the owner of this site sees this page\./)
  assert.equal(page.headers['x-error-code'], 'forbidden')
  const signedOut = await browser('10.8.0.2').get('/admin')
  assert.equal(signedOut.status, 303)
  assert.equal(signedOut.headers.location, '/login')
})

test('a password hash verifies only its own password, and a malformed hash matches nothing', async () => {
  const hash = await hashPassword('pässword 1')
  assert.equal(await verifyPassword('pässword 1', hash), true)
  assert.equal(await verifyPassword('pässword 2', hash), false)
  assert.equal(await verifyPassword('pässword 1', 'scrypt$1$1$1$$'), false)
  assert.notEqual(await hashPassword('pässword 1'), hash)
})

test('signing in again gives the browser a new provider session, and the old cookie names nothing', async () => {
  const rita = browser('10.9.0.1')
  await rita.get(login)
  codeOf(await rita.post('/login', { ...request, name: 'Rita', password: 'rita password' }))
  const first = rita.jar.get('idp_session')!
  // The same browser signs in again (its form token comes with any page it is shown).
  assert.equal((await rita.get('/account')).status, 200)
  codeOf(await rita.post('/login', { ...request, name: 'Rita', password: 'rita password' }))
  const second = rita.jar.get('idp_session')!
  assert.notEqual(second, first)
  assert.equal(
    (
      await sql`select count(*)::int as n from idp_sessions where id_hash = ${hashSecret(first)}`
    )[0]!.n,
    0,
  )
})

test('a new display name is what the apps get from the next sign-in', async () => {
  await owner.get('/account')
  const saved = await owner.post('/account/name', { display_name: '  Olivia O.  ' })
  assert.equal(saved.status, 303)
  const { body } = await exchange(codeOf(await owner.get(login)))
  assert.equal(body.name, 'Olivia O.')
  assert.equal(
    body.login,
    'Olivia',
    'the unique name the apps show beside a display name that reads differently',
  )
  const empty = await owner.post('/account/name', { display_name: '   ' })
  assert.equal(empty.status, 400)
  assert.match(empty.text, /Enter a name\./)
})

test('a passkey can be renamed and removed on /account, only by its own person', async () => {
  const ownerId = (await sql`select id from idp_accounts where is_owner`)[0]!.id as string
  await sql`insert into idp_passkeys (id, account_id, public_key, counter, name, created) values ('cred-1', ${ownerId}, ${Buffer.from([1])}, 0, 'Passkey 1', 0)`
  const page = await owner.get('/account')
  assert.match(page.text, /<strong>Passkey 1<\/strong>/)
  assert.equal(
    (await owner.post('/account/passkeys/rename', { id: 'cred-1', name: 'Laptop' })).status,
    303,
  )
  assert.match(
    (await owner.get('/account?done=renamed')).text,
    /<strong>Laptop<\/strong>[\s\S]*The passkey is renamed\.|The passkey is renamed\.[\s\S]*<strong>Laptop<\/strong>/,
  )
  const rita = browser('10.9.0.2')
  await rita.get(login)
  codeOf(await rita.post('/login', { ...request, name: 'Rita', password: 'rita password' }))
  await rita.get('/account')
  await rita.post('/account/passkeys/remove', { id: 'cred-1' })
  assert.equal(
    (await sql`select count(*)::int as n from idp_passkeys where id = 'cred-1'`)[0]!.n,
    1,
  )
  assert.equal((await owner.post('/account/passkeys/remove', { id: 'cred-1' })).status, 303)
  assert.equal(
    (await sql`select count(*)::int as n from idp_passkeys where id = 'cred-1'`)[0]!.n,
    0,
  )
})

test('open sign-up, off by default, lets anyone create an account while the owner has it on', async () => {
  const visitor = browser('10.10.0.1')
  assert.equal((await visitor.get('/signup')).status, 403)
  await owner.get('/admin')
  assert.equal((await owner.post('/admin/open-signup', { on: '1' })).status, 303)
  assert.equal((await visitor.get('/signup')).status, 200)
  assert.equal(
    (await visitor.post('/signup', { name: 'Uma', password: 'uma password' })).status,
    303,
  )
  await owner.post('/admin/open-signup', { on: '0' })
  assert.equal((await browser('10.10.0.2').get('/signup')).status, 403)
})

test('a sign-up link stops working when its days are over', async () => {
  await owner.get('/admin')
  const made = await owner.post('/admin/signup-links', { uses: '5', days: '1' })
  const link = new URL(/id="made-link">([^<]+)</.exec(made.text)![1]!).searchParams.get('link')!
  assert.equal((await browser('10.11.0.1').get(`/signup?link=${link}`)).status, 200)
  clock.advance(24 * 60 * 60 * 1000 + 1)
  assert.equal((await browser('10.11.0.2').get(`/signup?link=${link}`)).status, 403)
  const refused = await owner.post('/admin/signup-links', { uses: '0', days: '7' })
  assert.equal(refused.status, 400)
  assert.match(refused.text, /Uses is a whole number from 1 to 1000/)
})

test('a passkey ceremony needs the page token of its browser and the challenge that browser was given', async () => {
  const someone = browser('10.12.0.1')
  const page = await someone.get(login)
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!
  const post = someone.postJson
  assert.equal((await post('/passkeys/signin/options', { csrf: 'not the token' })).status, 403)
  const options = await post('/passkeys/signin/options', { csrf })
  assert.equal(options.status, 200)
  assert.equal(options.body.rpId, 'localhost')
  assert.match(
    String(options.headers['set-cookie']),
    new RegExp(
      `^idp_challenge=${options.body.challenge}; Max-Age=300; Path=/passkeys/; HttpOnly; SameSite=Strict`,
    ),
  )
  const response = {
    id: 'no-such-credential',
    rawId: 'no-such-credential',
    type: 'public-key',
    response: {},
    clientExtensionResults: {},
  }
  // Without the challenge cookie, nothing verifies.
  const noChallenge = await post('/passkeys/signin', { csrf, ...request, response })
  assert.deepEqual(
    [noChallenge.status, noChallenge.body.error],
    [400, 'The passkey could not be verified. Try again.'],
  )
  const unknown = await post(
    '/passkeys/signin',
    { csrf, ...request, response },
    `; idp_challenge=${options.body.challenge}`,
  )
  assert.equal(unknown.status, 400)
  assert.match(unknown.body.error, /This passkey is not known here/)
  // Adding a passkey needs a provider session.
  assert.equal((await post('/passkeys/register/options', { csrf })).status, 401)
})

/** `POST /api/signout` as an app sends it. */
async function appSignOut(body: Record<string, unknown>) {
  const response = await handler(
    makeRequest({ method: 'POST', url: '/api/signout', body: JSON.stringify(body) }),
  )
  return { status: response.status, body: JSON.parse(await bodyText(response.body)) }
}

test('an app signing out with the sign-in id of its exchange ends the provider session and both apps’ sessions of that browser only', async () => {
  const made = await provider.store.create({
    name: 'Tina',
    passwordHash: await hashPassword('tina password'),
    owner: false,
  })
  assert.ok(made.ok)
  const tina = browser('10.11.0.1')
  await tina.get(login)
  const first = await exchange(
    codeOf(await tina.post('/login', { ...request, name: 'Tina', password: 'tina password' })),
  )
  const sid = first.body.sid as string
  assert.match(sid, /^[A-Za-z0-9_-]{16,}$/)
  // A second sign-in from the same browser carries the same sign-in id.
  assert.equal((await exchange(codeOf(await tina.get(login)))).body.sid, sid)
  const other = browser('10.11.0.2')
  await other.get(login)
  const otherSid = (
    await exchange(
      codeOf(await other.post('/login', { ...request, name: 'Tina', password: 'tina password' })),
    )
  ).body.sid
  assert.notEqual(otherSid, sid)
  const tinaId = first.body.id as string
  await sql`insert into sessions (id, service, user_id, data, created, expires) values ('tina-notes', 'notes', ${tinaId}, ${sql.json({ idpSid: sid })}, 0, ${Date.now() + 1e9}), ('tina-notes-2', 'notes', ${tinaId}, ${sql.json({ idpSid: otherSid })}, 0, ${Date.now() + 1e9})`

  assert.deepEqual(await appSignOut({ key: 'dev-key', secret: 'wrong', sid }), {
    status: 401,
    body: { error: 'unknown app key or wrong secret' },
  })
  assert.equal((await appSignOut({ key: 'dev-key', secret: 'dev-secret-', sid })).status, 401)
  assert.deepEqual(await appSignOut({ key: 'dev-key', secret: 'dev-secret' }), {
    status: 400,
    body: { error: 'sid must be the sign-in id the exchange answered' },
  })
  assert.deepEqual(await appSignOut({ key: 'dev-key', secret: 'dev-secret', sid }), {
    status: 200,
    body: { ok: true, ended: true },
  })
  assert.equal((await tina.get('/account')).status, 303, 'the provider session has ended')
  assert.equal((await other.get('/account')).status, 200, 'the other browser is still signed in')
  assert.deepEqual(
    (await sql`select id from sessions where user_id = ${tinaId} order by id`).map((r) => r.id),
    ['tina-notes-2'],
  )
})
