import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createRouter, type Method, type Route, type Router } from '../src/http/router.ts'

type Handler = () => void
const handler: Handler = () => {}

function route(
  method: Method | '*',
  path: string,
  extra: Partial<Route<Handler>> = {},
): Route<Handler> {
  return { method, path, handler, ...extra }
}

/** What a request should get: a route named 'METHOD /path' with its params, a 405, or null. */
type Want = string | { allowed: Method[]; text: string } | null

/** Asks `router` for `request` ('METHOD /raw/path') and checks the whole answer against `want`. */
function check(
  router: Router<Handler>,
  request: string,
  want: Want,
  params: Record<string, string> = {},
): void {
  const space = request.indexOf(' ')
  const got = router.match(request.slice(0, space), request.slice(space + 1))
  if (want === null) return assert.equal(got, null, `${request} should match nothing`)
  assert.ok(got !== null, `${request} should match ${JSON.stringify(want)}, got null`)
  if (typeof want === 'string') {
    assert.ok(got.found, `${request} should match ${want}, got 405 ${JSON.stringify(got)}`)
    assert.equal(`${got.route.method} ${got.route.path}`, want, request)
    assert.equal(Object.getPrototypeOf(got.params), null, `${request}: params have a prototype`)
    assert.deepEqual(Object.entries(got.params), Object.entries(params), request)
  } else {
    assert.ok(!got.found, `${request} should be a 405, got ${got.found && got.route.path}`)
    assert.deepEqual({ allowed: got.allowed, text: got.text }, want, request)
  }
}

/** Checks that building a router from `routes` throws at start-up with a message matching `message`. */
function refused(routes: Route<Handler>[], message: RegExp): void {
  assert.throws(
    () => createRouter(routes),
    (error: unknown) => {
      assert.ok(error instanceof Error)
      assert.match(error.message, message)
      return true
    },
  )
}

test('a static path matches exactly, and the root path is a route', () => {
  const router = createRouter([
    route('GET', '/'),
    route('GET', '/api/notes'),
    route('GET', '/healthz'),
  ])
  check(router, 'GET /', 'GET /')
  check(router, 'GET /api/notes', 'GET /api/notes')
  check(router, 'GET /healthz', 'GET /healthz')
  check(router, 'GET /api', null)
  check(router, 'GET /api/notes/x', null)
  check(router, 'GET /nothing', null)
})

test('matching is case-sensitive', () => {
  const router = createRouter([route('GET', '/api/notes')])
  check(router, 'GET /API/notes', null)
  check(router, 'GET /api/Notes', null)
})

test('a trailing slash or an empty segment does not match a route without one', () => {
  const router = createRouter([
    route('GET', '/api/notes'),
    route('GET', '/p/:slug'),
    route('GET', '/:slug/:number'),
  ])
  check(router, 'GET /api/notes/', null)
  check(router, 'GET /api//notes', null)
  check(router, 'GET //api/notes', null)
  check(router, 'GET /p/demo/', null)
  check(router, 'GET /p//', null)
  check(router, 'GET //', null)
})

test('a route written with a trailing slash matches only with it', () => {
  const router = createRouter([route('GET', '/docs/')])
  check(router, 'GET /docs/', 'GET /docs/')
  check(router, 'GET /docs', null)
})

test('a path that does not start with a slash matches nothing', () => {
  const router = createRouter([route('GET', '/'), route('GET', '/:slug'), route('*', '/any')])
  for (const path of ['', '*', 'any', 'http://example.com/any']) check(router, `GET ${path}`, null)
})

test('a query string is not stripped: the caller passes the pathname only', () => {
  const router = createRouter([route('GET', '/api/notes'), route('GET', '/p/:slug')])
  check(router, 'GET /api/notes?id=1', null)
  check(router, 'GET /p/demo?x=1', 'GET /p/:slug', { slug: 'demo?x=1' })
})

test('a parameter matches exactly one non-empty segment', () => {
  const router = createRouter([route('GET', '/tickets/:ref')])
  check(router, 'GET /tickets/T-12', 'GET /tickets/:ref', { ref: 'T-12' })
  check(router, 'GET /tickets/', null)
  check(router, 'GET /tickets', null)
  check(router, 'GET /tickets/a/b', null)
})

test('parameters are percent-decoded, and only they are', () => {
  const router = createRouter([route('GET', '/p/:slug/:rest')])
  check(router, 'GET /p/a%20b/caf%C3%A9', 'GET /p/:slug/:rest', { slug: 'a b', rest: 'café' })
  check(router, 'GET /p/a%2Fb/%3Fx%23', 'GET /p/:slug/:rest', { slug: 'a/b', rest: '?x#' })
  check(router, 'GET /p/a+b/%25', 'GET /p/:slug/:rest', { slug: 'a+b', rest: '%' })
  check(router, 'GET /%70/a/b', null)
})

test('a malformed percent escape makes the path match nothing instead of throwing', () => {
  const router = createRouter([
    route('GET', '/p/:slug'),
    route('POST', '/q/:slug'),
    route('GET', '/:a/:b/:c'),
  ])
  for (const bad of ['%E0%A4%A', '%', '%zz', 'a%2', '%C3', '%FF', '%ED%A0%80']) {
    check(router, `GET /p/${bad}`, null)
    check(router, `GET /x/y/${bad}`, null)
    check(router, `GET /q/${bad}`, null)
  }
})

test('a static segment wins over a parameter at the same place, whatever the registration order', () => {
  const routes = [
    route('GET', '/api/projects/:slug'),
    route('GET', '/:slug/:number'),
    route('GET', '/:slug/:number/:x'),
  ]
  for (const table of [routes, [...routes].reverse()]) {
    const router = createRouter(table)
    check(router, 'GET /api/projects/x', 'GET /api/projects/:slug', { slug: 'x' })
    check(router, 'GET /demo/7', 'GET /:slug/:number', { slug: 'demo', number: '7' })
  }
})

test('a static branch that leads to no route falls back to the parameter', () => {
  const routes = [route('GET', '/api/projects/:slug'), route('GET', '/:slug/:number')]
  for (const table of [routes, [...routes].reverse()]) {
    check(createRouter(table), 'GET /api/projects', 'GET /:slug/:number', {
      slug: 'api',
      number: 'projects',
    })
  }
  const deeper = [route('GET', '/a/b/d'), route('GET', '/a/:x/c'), route('GET', '/:y/b/c/d')]
  for (const table of [deeper, [...deeper].reverse()]) {
    const router = createRouter(table)
    check(router, 'GET /a/b/d', 'GET /a/b/d')
    check(router, 'GET /a/b/c', 'GET /a/:x/c', { x: 'b' })
    check(router, 'GET /a/b/c/d', 'GET /:y/b/c/d', { y: 'a' })
    check(router, 'GET /a/b/e', null)
  }
})

test('the first path found decides: a 405 there is not passed on to a more general route', () => {
  const router = createRouter([route('GET', '/api/inbox'), route('*', '/:slug/:number')])
  check(router, 'POST /api/inbox', { allowed: ['GET', 'HEAD'], text: 'GET only' })
  check(router, 'POST /api/other', '* /:slug/:number', { slug: 'api', number: 'other' })
})

test('each route keeps its own parameter names at a shared place', () => {
  const router = createRouter([
    route('GET', '/p/:slug/tickets'),
    route('GET', '/p/:id/members'),
    route('GET', '/a/:x'),
    route('POST', '/a/:y'),
  ])
  check(router, 'GET /p/demo/tickets', 'GET /p/:slug/tickets', { slug: 'demo' })
  check(router, 'GET /p/demo/members', 'GET /p/:id/members', { id: 'demo' })
  check(router, 'GET /a/1', 'GET /a/:x', { x: '1' })
  check(router, 'POST /a/1', 'POST /a/:y', { y: '1' })
})

test('HEAD falls back to the GET route unless the path has a HEAD route', () => {
  const router = createRouter([
    route('GET', '/page'),
    route('GET', '/both'),
    route('HEAD', '/both'),
    route('POST', '/write'),
    route('GET', '/:slug'),
  ])
  check(router, 'HEAD /page', 'GET /page')
  check(router, 'HEAD /both', 'HEAD /both')
  check(router, 'GET /both', 'GET /both')
  check(router, 'HEAD /demo', 'GET /:slug', { slug: 'demo' })
  check(router, 'HEAD /write', { allowed: ['POST'], text: 'POST only' })
  check(router, 'POST /both', { allowed: ['GET', 'HEAD'], text: 'GET or HEAD' })
})

test("a '*' route takes every method, also ones no route names", () => {
  const router = createRouter([route('*', '/login/callback'), route('*', '/p/:slug')])
  for (const method of [
    'GET',
    'HEAD',
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'OPTIONS',
    'PROPFIND',
    'get',
  ]) {
    check(router, `${method} /login/callback`, '* /login/callback')
    check(router, `${method} /p/demo`, '* /p/:slug', { slug: 'demo' })
  }
  check(router, 'GET /login/callback/', null)
})

test('405 texts are derived from the methods of the path in registration order', () => {
  const router = createRouter([
    route('GET', '/api/inbox'),
    route('POST', '/api/connect/exchange'),
    route('GET', '/api/projects'),
    route('POST', '/api/projects'),
    route('POST', '/api/tokens'),
    route('GET', '/api/tokens'),
    route('DELETE', '/api/tokens'),
  ])
  check(router, 'POST /api/inbox', { allowed: ['GET', 'HEAD'], text: 'GET only' })
  check(router, 'GET /api/connect/exchange', { allowed: ['POST'], text: 'POST only' })
  check(router, 'HEAD /api/connect/exchange', { allowed: ['POST'], text: 'POST only' })
  check(router, 'PUT /api/projects', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST' })
  check(router, 'PATCH /api/tokens', {
    allowed: ['POST', 'GET', 'HEAD', 'DELETE'],
    text: 'POST or GET or DELETE',
  })
})

test('a methodText given by a route is the 405 text of its whole path', () => {
  const router = createRouter([
    route('GET', '/api/notes', { methodText: 'GET or POST only' }),
    route('POST', '/api/notes'),
    route('GET', '/p/:slug', { methodText: 'read only' }),
    route('GET', '/q/:a'),
    route('POST', '/q/:b', { methodText: 'GET or POST only' }),
  ])
  check(router, 'DELETE /api/notes', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST only' })
  check(router, 'POST /p/x', { allowed: ['GET', 'HEAD'], text: 'read only' })
  check(router, 'PUT /q/x', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST only' })
})

test('a method no route names, in any spelling, is a 405 on an existing path', () => {
  const router = createRouter([route('GET', '/api/inbox')])
  for (const method of ['TRACE', 'get', 'PROPFIND', '__proto__', 'constructor', '']) {
    check(router, `${method} /api/inbox`, { allowed: ['GET', 'HEAD'], text: 'GET only' })
  }
})

test('a 405 answer does not share its allowed list between requests', () => {
  const router = createRouter([route('GET', '/api/inbox')])
  const first = router.match('POST', '/api/inbox')
  assert.ok(first !== null && !first.found)
  first.allowed.push('POST')
  check(router, 'POST /api/inbox', { allowed: ['GET', 'HEAD'], text: 'GET only' })
})

test('a malformed escape on a path that has no route for the method is still no match', () => {
  const router = createRouter([route('POST', '/q/:slug')])
  check(router, 'GET /q/%E0%A4%A', null)
  check(router, 'GET /q/ok', { allowed: ['POST'], text: 'POST only' })
})

test('params have no prototype, so parameters named after Object.prototype members work', () => {
  const router = createRouter([
    route('GET', '/a/:constructor'),
    route('GET', '/b/:__proto__'),
    route('GET', '/c/:toString/:hasOwnProperty'),
    route('GET', '/d/:slug'),
    route('GET', '/static'),
  ])
  check(router, 'GET /a/x', 'GET /a/:constructor', { constructor: 'x' })
  check(router, 'GET /b/y', 'GET /b/:__proto__', { ['__proto__']: 'y' })
  check(router, 'GET /c/1/2', 'GET /c/:toString/:hasOwnProperty', {
    toString: '1',
    hasOwnProperty: '2',
  })

  const proto = router.match('GET', '/b/y')
  assert.ok(proto?.found)
  assert.equal(Object.getPrototypeOf(proto.params), null)
  assert.ok(Object.hasOwn(proto.params, '__proto__'))
  assert.equal(proto.params['__proto__'], 'y')

  for (const path of ['/d/z', '/static']) {
    const got = router.match('GET', path)
    assert.ok(got?.found)
    assert.equal(got.params.constructor, undefined)
    assert.equal(got.params.toString, undefined)
    assert.equal('hasOwnProperty' in got.params, false)
  }
})

test('the matched route is the object from the table, its own fields and methodText untouched', () => {
  const live: Route<Handler> & { note: string } = { ...route('GET', '/api/live'), note: 'waits' }
  const notes = route('*', '/api/notes', { methodText: 'GET or POST only' })
  const table = [live, notes, route('GET', '/:slug')]
  const router = createRouter(table)
  const got = router.match('GET', '/api/live')
  assert.ok(got?.found)
  assert.equal(got.route, live)
  assert.equal(got.route.note, 'waits')
  const any = router.match('PUT', '/api/notes')
  assert.ok(any?.found)
  assert.equal(any.route, notes)
  assert.equal(any.route.methodText, 'GET or POST only')
  assert.deepEqual(router.routes, table)
  assert.equal(router.routes[0], live)
  table.pop()
  assert.equal(router.routes.length, 3)
})

test('a very long path with many segments is answered without trouble', () => {
  const router = createRouter([route('GET', '/:a/:b'), route('GET', '/a/a/a')])
  check(router, `GET ${'/a'.repeat(200_000)}`, null)
  check(router, `GET /${'%'.repeat(100_000)}/x`, null)
})

test('registration refuses a path that does not start with a slash', () => {
  refused([route('GET', 'api/notes')], /'GET api\/notes'.*must start with '\/'/)
  refused([route('GET', '')], /must start with '\/'/)
  refused(
    [{ method: 'GET', path: undefined as unknown as string, handler }],
    /must start with '\/'/,
  )
})

test('registration refuses an empty parameter name', () => {
  refused([route('GET', '/p/:')], /'GET \/p\/:'.*needs a name/)
  refused([route('GET', '/:/x')], /needs a name/)
})

test('registration refuses a parameter name that is not an identifier', () => {
  for (const name of ['1x', 'a-b', 'slug?', 'id.json', 'a b', 'é', ':x']) {
    refused([route('GET', `/p/:${name}`)], new RegExp(`'GET /p/:.*not an identifier`))
  }
})

test('registration refuses the same parameter name twice in one path', () => {
  refused([route('GET', '/p/:slug/x/:slug')], /'GET \/p\/:slug\/x\/:slug'.*'slug' appears twice/)
})

test('registration refuses the same method and path twice, also when only parameter names differ', () => {
  refused(
    [route('GET', '/api/notes'), route('GET', '/api/notes')],
    /'GET \/api\/notes'.*same method and path as 'GET \/api\/notes'/,
  )
  refused(
    [route('GET', '/a/:x'), route('POST', '/a/:x'), route('GET', '/a/:y')],
    /'GET \/a\/:y'.*same method and path as 'GET \/a\/:x'/,
  )
  refused(
    [route('*', '/p/:slug'), route('*', '/p/:id')],
    /'\* \/p\/:id'.*same method and path as '\* \/p\/:slug'/,
  )
})

test('registration refuses an unknown method', () => {
  for (const method of ['get', 'TRACE', 'ANY', '']) {
    refused(
      [{ method: method as Method, path: '/x', handler }],
      new RegExp(`'${method} /x'.*unknown method`),
    )
  }
})

test('registration refuses a handler that is not a function', () => {
  for (const bad of [undefined, null, 'notes.list', {}]) {
    refused(
      [{ method: 'GET', path: '/x', handler: bad as Handler }],
      /'GET \/x'.*handler is not a function/,
    )
  }
})

test('registration refuses different methodTexts on one path', () => {
  refused(
    [
      route('GET', '/api/notes', { methodText: 'GET or POST only' }),
      route('POST', '/api/notes', { methodText: 'POST only' }),
    ],
    /'POST \/api\/notes'.*methodText 'POST only' differs from 'GET or POST only'/,
  )
  refused(
    [route('GET', '/a/:x', { methodText: 'one' }), route('POST', '/a/:y', { methodText: 'two' })],
    /'POST \/a\/:y'.*differs/,
  )
  refused(
    [route('GET', '/x', { methodText: '' })],
    /'GET \/x'.*methodText must be a non-empty string/,
  )
})

test("registration refuses a '*' route beside specific methods on one path, in either order", () => {
  refused(
    [route('GET', '/api/me'), route('*', '/api/me')],
    /'\* \/api\/me'.*either one '\*' route.*'GET \/api\/me'/,
  )
  refused(
    [route('*', '/api/me'), route('POST', '/api/me')],
    /'POST \/api\/me'.*either one '\*' route.*'\* \/api\/me'/,
  )
  refused([route('*', '/p/:a'), route('GET', '/p/:b')], /'GET \/p\/:b'.*'\* \/p\/:a'/)
})

test('registration refuses a static segment a raw request path cannot carry as is', () => {
  for (const path of [
    '/static/*',
    '/a b',
    '/caf\u00e9',
    '/a%20b',
    '/api/notes?id=1',
    '/page#top',
    '/a\\b',
  ]) {
    refused([route('GET', path)], /cannot carry as is/)
  }
})

test('registration accepts different parameter names at the same place on different paths', () => {
  assert.doesNotThrow(() =>
    createRouter([
      route('GET', '/p/:slug/tickets'),
      route('GET', '/p/:id/members'),
      route('GET', '/:slug'),
      route('POST', '/:id'),
    ]),
  )
})

/** The ticket service's routes, shaped like its interface document, plus the notes service's. */
const service: Route<Handler>[] = [
  route('GET', '/healthz'),
  route('*', '/login/callback'),
  route('GET', '/login/failed'),
  route('*', '/api/me'),
  route('*', '/api/notes', { methodText: 'GET or POST only' }),
  route('GET', '/api/tickets'),
  route('POST', '/api/tickets'),
  route('GET', '/api/tickets/:ref'),
  route('POST', '/api/tickets/:ref/comments'),
  route('POST', '/api/tickets/:ref/state'),
  route('POST', '/api/tickets/:ref/assign'),
  route('GET', '/api/projects'),
  route('POST', '/api/projects'),
  route('GET', '/api/projects/:slug'),
  route('POST', '/api/projects/:slug'),
  route('GET', '/api/projects/:slug/tickets'),
  route('POST', '/api/projects/:slug/tickets'),
  route('GET', '/api/projects/:slug/tickets/:number'),
  route('POST', '/api/projects/:slug/tickets/:number/comments'),
  route('POST', '/api/projects/:slug/tickets/:number/state'),
  route('POST', '/api/projects/:slug/members'),
  route('POST', '/api/projects/:slug/members/remove'),
  route('POST', '/api/projects/:slug/invites'),
  route('GET', '/api/projects/:slug/connections'),
  route('POST', '/api/projects/:slug/connections/remove'),
  route('GET', '/api/inbox'),
  route('GET', '/api/live'),
  route('GET', '/api/tokens'),
  route('POST', '/api/tokens'),
  route('POST', '/api/tokens/revoke'),
  route('POST', '/api/connect/exchange'),
  route('POST', '/api/connect/:nonce/confirm'),
  route('GET', '/connect'),
  route('GET', '/connect/:nonce'),
  route('GET', '/tickets/:ref'),
  route('GET', '/projects/:slug'),
  route('GET', '/projects/:slug/:number'),
  route('GET', '/projects/:slug/tickets/:number'),
  route('GET', '/'),
  route('GET', '/:slug'),
  route('GET', '/:slug/:number'),
]

const serviceCases: [request: string, want: Want, params?: Record<string, string>][] = [
  ['GET /healthz', 'GET /healthz'],
  ['HEAD /healthz', 'GET /healthz'],
  ['GET /healthz/', null],
  ['POST /login/callback', '* /login/callback'],
  ['GET /login/failed', 'GET /login/failed'],
  ['GET /login/other', 'GET /:slug/:number', { slug: 'login', number: 'other' }],
  ['DELETE /api/me', '* /api/me'],
  ['DELETE /api/notes', '* /api/notes'],
  ['GET /api/tickets', 'GET /api/tickets'],
  ['POST /api/tickets', 'POST /api/tickets'],
  ['PUT /api/tickets', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST' }],
  ['GET /api/tickets/demo-7', 'GET /api/tickets/:ref', { ref: 'demo-7' }],
  ['POST /api/tickets/demo-7', { allowed: ['GET', 'HEAD'], text: 'GET only' }],
  ['POST /api/tickets/demo-7/comments', 'POST /api/tickets/:ref/comments', { ref: 'demo-7' }],
  ['GET /api/tickets/demo-7/comments', { allowed: ['POST'], text: 'POST only' }],
  ['POST /api/tickets/demo-7/state', 'POST /api/tickets/:ref/state', { ref: 'demo-7' }],
  ['POST /api/tickets/demo-7/nothing', null],
  ['GET /api/projects', 'GET /api/projects'],
  ['PATCH /api/projects', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST' }],
  ['GET /api/projects/demo', 'GET /api/projects/:slug', { slug: 'demo' }],
  ['POST /api/projects/demo', 'POST /api/projects/:slug', { slug: 'demo' }],
  ['DELETE /api/projects/demo', { allowed: ['GET', 'HEAD', 'POST'], text: 'GET or POST' }],
  ['GET /api/projects/demo/tickets', 'GET /api/projects/:slug/tickets', { slug: 'demo' }],
  [
    'GET /api/projects/demo/tickets/7',
    'GET /api/projects/:slug/tickets/:number',
    { slug: 'demo', number: '7' },
  ],
  [
    'POST /api/projects/demo/tickets/7/state',
    'POST /api/projects/:slug/tickets/:number/state',
    { slug: 'demo', number: '7' },
  ],
  ['GET /api/projects/demo/tickets/7/state', { allowed: ['POST'], text: 'POST only' }],
  [
    'POST /api/projects/demo/members/remove',
    'POST /api/projects/:slug/members/remove',
    { slug: 'demo' },
  ],
  ['GET /api/projects/demo/connections', 'GET /api/projects/:slug/connections', { slug: 'demo' }],
  ['GET /api/projects/demo/unknown', null],
  ['POST /api/inbox', { allowed: ['GET', 'HEAD'], text: 'GET only' }],
  ['GET /api/live', 'GET /api/live'],
  ['POST /api/tokens/revoke', 'POST /api/tokens/revoke'],
  ['POST /api/connect/exchange', 'POST /api/connect/exchange'],
  ['GET /api/connect/exchange', { allowed: ['POST'], text: 'POST only' }],
  ['POST /api/connect/n0nce/confirm', 'POST /api/connect/:nonce/confirm', { nonce: 'n0nce' }],
  ['GET /api/connect', 'GET /:slug/:number', { slug: 'api', number: 'connect' }],
  ['GET /connect', 'GET /connect'],
  ['GET /connect/n0nce', 'GET /connect/:nonce', { nonce: 'n0nce' }],
  ['POST /connect/n0nce', { allowed: ['GET', 'HEAD'], text: 'GET only' }],
  ['GET /tickets/a1b2', 'GET /tickets/:ref', { ref: 'a1b2' }],
  ['GET /projects/demo', 'GET /projects/:slug', { slug: 'demo' }],
  ['GET /projects/demo/7', 'GET /projects/:slug/:number', { slug: 'demo', number: '7' }],
  [
    'GET /projects/demo/tickets/7',
    'GET /projects/:slug/tickets/:number',
    { slug: 'demo', number: '7' },
  ],
  [
    'GET /projects/demo/tickets',
    'GET /projects/:slug/:number',
    { slug: 'demo', number: 'tickets' },
  ],
  ['GET /', 'GET /'],
  ['POST /', { allowed: ['GET', 'HEAD'], text: 'GET only' }],
  ['GET /demo', 'GET /:slug', { slug: 'demo' }],
  ['GET /api', 'GET /:slug', { slug: 'api' }],
  ['GET /demo/7', 'GET /:slug/:number', { slug: 'demo', number: '7' }],
  ['HEAD /demo/7', 'GET /:slug/:number', { slug: 'demo', number: '7' }],
  ['GET /d%C3%A9mo/7', 'GET /:slug/:number', { slug: 'démo', number: '7' }],
  ['GET /demo/7/', null],
  ['GET /demo/7/x', null],
  ['GET /demo//7', null],
]

test('a table shaped like a real service answers every row as its document says', () => {
  const router = createRouter(service)
  for (const [request, want, params] of serviceCases) check(router, request, want, params)
})

test('reordering the paths of a real service table changes no answer', () => {
  const byPath = new Map<string, Route<Handler>[]>()
  for (const r of service) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r])
  // Within one path the order stays: it is what derives the 405 text.
  const reversed = [...byPath.values()].reverse().flat()
  const router = createRouter(reversed)
  for (const [request, want, params] of serviceCases) check(router, request, want, params)
})

test('a route without params answers empty params that no handler can change for the next request', () => {
  const router = createRouter<Handler>([
    { method: 'GET', path: '/static', handler: () => ({ status: 200 }) },
  ])
  const first = router.match('GET', '/static')
  assert.ok(first?.found)
  assert.throws(() => {
    first.params.leaked = 'x'
  }, TypeError)
  const second = router.match('GET', '/static')
  assert.ok(second?.found)
  assert.deepEqual(Object.keys(second.params), [])
  assert.equal(Object.getPrototypeOf(second.params), null)
})
