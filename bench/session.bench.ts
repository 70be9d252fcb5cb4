// What reading the session from the database costs the requests a signed-in person makes most.
// Run: tsx bench/session.bench.ts   (DATABASE_URL set: that server; unset: an embedded database)
//
// Contenders, requests per second with the same concurrency, each signed in by a session cookie:
//   notes /api/me        GET /api/me on the notes service: the session read is all it does
//   tickets /api/me      GET /api/me on the tickets service: the session and its user
//   ticket page          GET /p/1 on the tickets service: a ticket with 20 comments, signed in
// each signed in (the session read from the database on every request) and signed out (no
// cookie): the difference is what the session read costs. Rounds interleave the contenders;
// each figure is the median.

import { loginFailed } from '../src/auth/idp.ts'
import { loadConfig } from '../src/config.ts'
import { serve } from '../src/http/server.ts'
import { createLogger } from '../src/base/log.ts'
import { createNotesService } from '../src/notes/service.ts'
import { createSessions, loadSessionSecret } from '../src/auth/session.ts'
import { createTicketsService } from '../src/tickets/service.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { storeUser } from '../src/tickets/store/users.ts'
import { benchDatabase, keepAliveClient, median } from './support.ts'

const CONCURRENCY = 8
const POOL = 10
const ROUNDS = 5
const ROUND_SECONDS = 0.5

const database = await benchDatabase(POOL)
const { sql } = database
const config = loadConfig({})
const logger = createLogger(null)
const secret = await loadSessionSecret(sql, null)
const idp = {
  loginUrl: () => '',
  exchange: async () => loginFailed('not in the bench'),
  signOut: async () => false,
}

const user = await storeUser(sql, { id: 'bench-user', name: 'bench' }, Date.now())

/** Both services on one server each; a signed-in cookie for each. */
async function services() {
  const notesSessions = createSessions({
    sql,
    secret,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const ticketsSessions = createSessions({
    sql,
    secret,
    service: 'tickets',
    secure: false,
    clock: Date.now,
  })
  const notes = createNotesService({
    sql,
    config,
    clock: Date.now,
    idp,
    sessions: notesSessions,
    logger,
    publicUrl: 'http://localhost:3001',
  })
  const tickets = createTicketsService({
    sql,
    config,
    clock: Date.now,
    idp,
    sessions: ticketsSessions,
    logger,
    publicUrl: 'http://localhost:3002',
  })
  const notesServer = await serve({
    name: 'notes',
    routes: notes.routes,
    host: '127.0.0.1',
    port: 0,
    logger,
  })
  const ticketsServer = await serve({
    name: 'tickets',
    routes: tickets.routes,
    notFound: tickets.notFound,
    host: '127.0.0.1',
    port: 0,
    logger,
  })
  const notesSession = notesSessions.create()
  notesSession.userId = user.id
  await notesSessions.save(notesSession)
  const ticketsSession = ticketsSessions.create()
  ticketsSession.userId = user.id
  ticketsSession.data = { user: { id: user.id }, tag: 'bench-tag' }
  await ticketsSessions.save(ticketsSession)
  return {
    notes: {
      client: keepAliveClient(notesServer.url, CONCURRENCY),
      cookie: notesSessions.cookie(notesSession).split(';')[0]!,
    },
    tickets: {
      client: keepAliveClient(ticketsServer.url, CONCURRENCY),
      cookie: ticketsSessions.cookie(ticketsSession).split(';')[0]!,
    },
    async close() {
      for (const s of [notesServer, ticketsServer]) await s.close()
      await notes.close?.()
      await tickets.close?.()
    },
  }
}

const side = await services()

const { token } = await issueToken(createTicketStore({ sql, clock: Date.now }), user.id, 'bench')
const made = await side.tickets.client.call(
  'POST',
  '/api/projects',
  { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  JSON.stringify({ title: 'P', slug: 'p' }),
)
if (made.status !== 201) throw new Error(`could not create the project: ${made.status}`)
const ticket = await side.tickets.client.call(
  'POST',
  '/api/projects/p/tickets',
  { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  JSON.stringify({ subject: 'A ticket', summary: 'Its summary.' }),
)
if (ticket.status !== 201)
  throw new Error(`could not create the ticket: ${ticket.status} ${ticket.text}`)
const ticketId = (JSON.parse(ticket.text) as { ticket: { id: string } }).ticket.id
for (let i = 0; i < 20; i++) {
  const got = await side.tickets.client.call(
    'POST',
    `/api/tickets/${ticketId}/comments`,
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    JSON.stringify({ text: `Comment ${i} with **Markdown**.` }),
  )
  if (got.status !== 201) throw new Error(`could not comment: ${got.status} ${got.text}`)
}

type Contender = { service: 'notes' | 'tickets'; path: string; signedIn: boolean }
const contenders: Record<string, Contender> = {}
for (const [label, signedIn] of [
  ['signed in', true],
  ['signed out', false],
] as const) {
  contenders[`notes /api/me, ${label}`] = { service: 'notes', path: '/api/me', signedIn }
  contenders[`tickets /api/me, ${label}`] = { service: 'tickets', path: '/api/me', signedIn }
  contenders[`ticket page, ${label}`] = { service: 'tickets', path: '/p/1', signedIn }
}

/** Requests a second over `seconds`, CONCURRENCY at a time. */
async function measure({ service, path, signedIn }: Contender, seconds: number): Promise<number> {
  const { client, cookie } = side[service]
  const headers: Record<string, string> = signedIn ? { cookie } : {}
  let count = 0
  const started = performance.now()
  const end = started + seconds * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const got = await client.fetchBytes('GET', path, headers)
        if (got.status !== 200) throw new Error(`${path}: status ${got.status}`)
        count++
      }
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

console.log(`# session bench on the ${database.kind} database, concurrency ${CONCURRENCY}`)
const names = Object.keys(contenders)
for (const name of names) await measure(contenders[name]!, ROUND_SECONDS)
const results: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]!
    results[name]!.push(await measure(contenders[name]!, ROUND_SECONDS))
  }
}
for (const what of ['notes /api/me', 'tickets /api/me', 'ticket page']) {
  const signedIn = median(results[`${what}, signed in`]!)
  const signedOut = median(results[`${what}, signed out`]!)
  console.log(
    `${what.padEnd(16)} signed in ${signedIn.toFixed(0).padStart(6)} req/s   signed out ${signedOut.toFixed(0).padStart(6)} req/s   ratio ${(signedIn / signedOut).toFixed(2)}`,
  )
}

side.notes.client.close()
side.tickets.client.close()
await side.close()
await database.close()
