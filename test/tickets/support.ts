/**
 * Shared set-up for the ticket service tests: a migrated schema, the service,
 * `call()` to send a request without a socket through the same handler `serve` uses, and
 * `login()` to sign a person in through the login return and give them a token.
 */
import assert from 'node:assert/strict'
import { after } from 'node:test'
import { createHandler, type HttpRoute } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { bodyText } from '../../src/http/response.ts'
import {
  createTicketsService,
  type MailOptions,
  type WebhookOptions,
} from '../../src/tickets/service.ts'
import { testDatabase } from '../support/db.ts'
import { serviceDeps, testClock, testLogger } from '../support/service.ts'

export interface Answer {
  status: number
  headers: Record<string, string | string[]>
  text: string
  body: any
}

export interface CallOptions {
  /** A user token or key, sent as `Authorization: Bearer`. */
  token?: string
  /** A JSON body (serialised), or raw text. */
  body?: unknown
  raw?: string
  headers?: Record<string, string>
}

export interface Person {
  id: string
  name: string
  token: string
  /** `tickets_session=<sealed>` for a Cookie header. */
  cookie: string
  tag: string
}

export async function ticketsApp(
  options: {
    env?: NodeJS.ProcessEnv
    webhooks?: WebhookOptions
    clock?: ReturnType<typeof testClock>
    mail?: MailOptions
    /** False: the notifications' fan-out does not run (a test writes notifications itself). */
    notify?: boolean
    /** False: the due-date reminders are not swept by themselves (a test runs `dueSweep.run`). */
    dueSweep?: boolean
  } = {},
) {
  // Registered before the database's own hook, so the services (and their webhook workers) stop
  // before their database closes.
  const services: { close?(): void | Promise<void> }[] = []
  after(async () => {
    for (const s of services) await s.close?.()
  })
  const db = await testDatabase()
  const clock = options.clock ?? testClock()
  const { deps, idp, sessions, config } = await serviceDeps(db.sql, 'tickets', {
    clock: clock.now,
    env: options.env,
  })
  const service = createTicketsService({
    ...deps,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.mail ? { mail: options.mail } : {}),
    ...(options.notify === false ? { notify: false } : {}),
    ...(options.dueSweep === false ? { dueSweep: false } : {}),
  })
  services.push(service)

  const call = caller(service)

  /** Another instance of the service on the same schema, with other settings (`SMTP_URL`, say). */
  async function another(env: NodeJS.ProcessEnv, webhooks?: WebhookOptions, mail?: MailOptions) {
    const other = await serviceDeps(db.sql, 'tickets', { clock: clock.now, env })
    const service = createTicketsService({
      ...other.deps,
      ...(webhooks ? { webhooks } : {}),
      ...(mail ? { mail, notify: false } : {}),
      ...(options.dueSweep === false ? { dueSweep: false } : {}),
    })
    services.push(service)
    return Object.assign(caller(service), { service })
  }

  let people = 0
  /** Signs `name` in through the login return and issues a token. */
  async function login(name: string, idpId = `idp-${name}-${++people}`): Promise<Person> {
    const code = idp.code({ id: idpId, name })
    const back = await call('GET', `/login/callback?idp_code=${code}`)
    assert.equal(back.status, 302, back.text)
    const cookie = String(back.headers['set-cookie']).split(';')[0]!
    const me = await call('GET', '/api/me', { headers: { cookie } })
    const made = await call('POST', '/api/tokens', {
      headers: { cookie, 'x-tag': me.body.tag },
      body: { label: 'tests' },
    })
    assert.equal(made.status, 201, made.text)
    return { id: me.body.user.id, name, token: made.body.token, cookie, tag: me.body.tag }
  }

  /** Creates a project as `owner`; answers its slug and id. */
  async function project(
    owner: Person,
    title: string,
    extra: Record<string, string> = {},
  ): Promise<{ slug: string; id: string }> {
    const made = await call('POST', '/api/projects', {
      token: owner.token,
      body: { title, ...extra },
    })
    assert.equal(made.status, 201, made.text)
    return { slug: made.body.project.slug, id: made.body.project.id }
  }

  /** Makes `person` a member of the project with `role`, as `admin`. */
  async function member(admin: Person, slug: string, person: Person, role: string): Promise<void> {
    const set = await call('POST', `/api/projects/${slug}/members`, {
      token: admin.token,
      body: { user: person.id, role },
    })
    assert.equal(set.status, 200, set.text)
  }

  /** Creates a ticket; answers it. */
  async function ticket(author: Person, slug: string, fields: Record<string, string> = {}) {
    const made = await call('POST', `/api/projects/${slug}/tickets`, {
      token: author.token,
      body: { subject: 'A ticket', ...fields },
    })
    assert.equal(made.status, 201, made.text)
    return made.body.ticket as { id: string; number: number; ref: string; [k: string]: unknown }
  }

  /**
   * The live events of the projects stored in the outbox, oldest first; not those for one person
   * (the bell's, which the notifications' fan-out writes after the write).
   */
  async function events(): Promise<{ name: string; args: unknown[]; project_id: string }[]> {
    return await db.sql`select name, args, project_id from events where user_id is null order by id`
  }

  return {
    db,
    sql: db.sql,
    clock,
    idp,
    sessions,
    config,
    service,
    call,
    another,
    login,
    project,
    member,
    ticket,
    events,
  }
}

/** Sends requests to a service without a socket, through the handler `serve` puts on a port. */
export function caller(service: { routes: HttpRoute[] }) {
  const handler = createHandler(service.routes, { name: 'tickets', logger: testLogger() })
  return async function call(
    method: string,
    url: string,
    options: CallOptions = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await handler(makeRequest({ method, url, headers, body }))
    const text = await bodyText(response.body)
    const type = String(response.headers?.['content-type'] ?? '')
    return {
      status: response.status,
      headers: response.headers ?? {},
      text,
      body: type.startsWith('application/json') ? JSON.parse(text) : undefined,
    }
  }
}

export type TicketsApp = Awaited<ReturnType<typeof ticketsApp>>

/** Asserts an answer's status and JSON body. */
export function expectJson(answer: Answer, status: number, body?: unknown): void {
  assert.equal(answer.status, status, answer.text)
  if (body !== undefined) assert.deepEqual(answer.body, body)
}
