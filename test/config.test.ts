import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../src/config.ts'

test('with no settings, the defaults of the configuration table apply', () => {
  const c = loadConfig({})
  assert.equal(c.notesPort, 3001)
  assert.equal(c.ticketsPort, 3002)
  assert.equal(c.idpPort, 3003)
  assert.equal(c.host, '127.0.0.1')
  assert.equal(c.notesUrl, 'http://localhost:3001')
  assert.equal(c.ticketsUrl, 'http://localhost:3002')
  assert.equal(c.databaseUrl, null)
  assert.equal(c.dataDir, './data')
  assert.equal(c.authUrl, null)
  assert.equal(c.apiKey, 'dev-key')
  assert.equal(c.apiSecret, 'dev-secret')
  assert.equal(c.sessionSecret, null)
  assert.equal(c.smtpUrl, null)
  assert.deepEqual(c.services, ['notes', 'tickets'])
  assert.deepEqual(c.rateLimits, {
    api: { rate: 100, burst: 1000 },
    signin: { rate: 5, burst: 100 },
  })
  assert.equal(c.trustProxy, 0)
})

test('RATE_LIMIT and RATE_LIMIT_SIGNIN take a rate a second and a burst; RATE_LIMIT=off turns limits off', () => {
  assert.deepEqual(loadConfig({ RATE_LIMIT: '20,200', RATE_LIMIT_SIGNIN: '0.5, 10' }).rateLimits, {
    api: { rate: 20, burst: 200 },
    signin: { rate: 0.5, burst: 10 },
  })
  assert.equal(loadConfig({ RATE_LIMIT: 'off' }).rateLimits, null)
  assert.throws(
    () => loadConfig({ RATE_LIMIT: '100' }),
    /RATE_LIMIT must be 'off' or '<requests a second>,<burst>' such as '100,1000', not '100'/,
  )
  assert.throws(
    () => loadConfig({ RATE_LIMIT_SIGNIN: '0,10' }),
    /RATE_LIMIT_SIGNIN must be '<requests a second>,<burst>'/,
  )
  assert.throws(() => loadConfig({ RATE_LIMIT: '10,0' }), /RATE_LIMIT must be/)
})

test('TRUST_PROXY is a number of proxies', () => {
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
  assert.throws(
    () => loadConfig({ TRUST_PROXY: 'yes' }),
    /TRUST_PROXY must be the number of reverse proxies in front/,
  )
})

test('ports set the default public URLs, and a trailing slash is dropped from a given one', () => {
  const c = loadConfig({ NOTES_PORT: '4001', TICKETS_URL: 'https://t.example/' })
  assert.equal(c.notesUrl, 'http://localhost:4001')
  assert.equal(c.ticketsUrl, 'https://t.example')
})

test('SERVICES runs one service alone', () => {
  assert.deepEqual(loadConfig({ SERVICES: 'tickets' }).services, ['tickets'])
})

test('a wrong setting stops the start with a message naming the variable', () => {
  assert.throws(() => loadConfig({ NOTES_PORT: 'abc' }), /NOTES_PORT must be a port number/)
  assert.throws(
    () => loadConfig({ AUTH_URL: 'not a url' }),
    /AUTH_URL must be an absolute http\(s\) URL/,
  )
  assert.throws(
    () => loadConfig({ SESSION_SECRET: 'c2hvcnQ=' }),
    /SESSION_SECRET must be 32 bytes in base64/,
  )
  assert.throws(
    () => loadConfig({ SERVICES: 'mail' }),
    /SERVICES takes 'notes' and\/or 'tickets', not 'mail'/,
  )
})

test('a 32-byte base64 SESSION_SECRET is taken as it is', () => {
  const secret = Buffer.alloc(32, 7).toString('base64')
  assert.deepEqual(loadConfig({ SESSION_SECRET: secret }).sessionSecret, new Uint8Array(32).fill(7))
})

test('IDP_PORT names the provider port, DEV_IDP_PORT is still read, IDP_URL is its public address, DEV_SIGNIN=1 picks the development provider', () => {
  assert.equal(loadConfig({ IDP_PORT: '4003' }).idpPort, 4003)
  assert.equal(loadConfig({ DEV_IDP_PORT: '4004' }).idpPort, 4004)
  assert.equal(loadConfig({ IDP_PORT: '4003', DEV_IDP_PORT: '4004' }).idpPort, 4003)
  assert.equal(loadConfig({}).idpUrl, null)
  assert.equal(
    loadConfig({ IDP_URL: 'https://login.example.org/' }).idpUrl,
    'https://login.example.org',
  )
  assert.equal(loadConfig({}).devSignin, false)
  assert.equal(loadConfig({ DEV_SIGNIN: '1' }).devSignin, true)
  assert.throws(
    () => loadConfig({ DEV_SIGNIN: 'yes' }),
    /DEV_SIGNIN must be 1 \(the development provider\) or 0, not 'yes'/,
  )
  assert.throws(() => loadConfig({ IDP_URL: 'login' }), /IDP_URL must be an absolute http\(s\) URL/)
})

test('mail settings: MAIL_FROM defaults to notifications@ the host of TICKETS_URL, NOTIFY_DELAY to 120 s', () => {
  const plain = loadConfig({})
  assert.equal(plain.mailFrom, 'notifications@localhost')
  assert.equal(plain.notifyDelaySeconds, 120)
  const set = loadConfig({
    TICKETS_URL: 'https://tickets.example.org',
    SMTP_URL: 'smtps://me:secret@mail.example.org:465',
    NOTIFY_DELAY: '30',
  })
  assert.equal(set.mailFrom, 'notifications@tickets.example.org')
  assert.equal(set.smtpUrl, 'smtps://me:secret@mail.example.org:465')
  assert.equal(set.notifyDelaySeconds, 30)
  assert.equal(
    loadConfig({ MAIL_FROM: 'Tickets <bot@example.org>' }).mailFrom,
    'Tickets <bot@example.org>',
  )
  assert.equal(loadConfig({ NOTIFY_DELAY: '0' }).notifyDelaySeconds, 0)
})

test('a wrong mail setting stops the start with a message naming it', () => {
  assert.throws(() => loadConfig({ SMTP_URL: 'mail.example.org' }), /SMTP_URL must be a URL/)
  assert.throws(
    () => loadConfig({ SMTP_URL: 'http://mail.example.org' }),
    /SMTP_URL must start with smtp:\/\/ or smtps:\/\//,
  )
  assert.throws(() => loadConfig({ MAIL_FROM: 'nobody' }), /MAIL_FROM must be a mail address/)
  assert.throws(() => loadConfig({ MAIL_FROM: 'a@b, c@d' }), /MAIL_FROM must be a mail address/)
  for (const bad of ['-1', '2m', '1.5', '86401'])
    assert.throws(
      () => loadConfig({ NOTIFY_DELAY: bad }),
      new RegExp(`NOTIFY_DELAY must be a whole number of seconds from 0 to 86400, not '${bad}'`),
    )
})
