/**
 * The request router: a route table, checked and compiled once at start-up into a segment
 * trie, then asked for each request which route takes a method and a raw pathname.
 *
 * ```ts
 * const router = createRouter([
 *   { method: 'GET', path: '/api/projects/:slug', handler: showProject },
 *   { method: 'GET', path: '/:slug/:number', handler: ticketPage },
 * ])
 * router.match('GET', '/api/projects/demo')
 * // { found: true, route: <the first route>, params: { slug: 'demo' } }
 * ```
 *
 * @module
 */

/** The HTTP methods a route can name. */
export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

/** A route as data. method '*' takes every method (the handler checks the method itself). */
export interface Route<H> {
  /** The method this route takes, or '*' for all of them. */
  method: Method | '*'
  /**
   * The path, written as it arrives in the URL: '/api/notes', '/api/projects/:slug/tickets/:number',
   * '/:slug'. A `:name` segment takes one non-empty segment; every other segment is matched
   * exactly and case-sensitively.
   */
  path: string
  /** Whatever the caller runs for this route; it must be a function. */
  handler: H
  /**
   * The 405 text for this path. Every route of the path that gives it must give the same text;
   * without it the text is derived from the path's methods (`GET only`, `GET or POST`).
   */
  methodText?: string
}

/** Route params: a null-prototype object, keys are the `:name`s, values percent-decoded. */
export type Params = Record<string, string>

/**
 * The answer for a path that exists: the route that takes the method with its params, or a
 * 405 (`found: false`) listing the methods the path takes and the text to answer with.
 */
export type Match<H> =
  | { found: true; route: Route<H>; params: Params }
  | { found: false; allowed: Method[]; text: string }

/** A compiled route table. */
export interface Router<H> {
  /**
   * Finds the route for a request. `path` is the raw pathname: still percent-encoded, without
   * the query. Returns null when no route has the path (a 404): also for a trailing slash or an
   * empty segment the route does not have, and for a param that does not percent-decode.
   *
   * A static segment wins over a param at the same place, falling back to the param when the
   * static branch leads to no route. The first path found decides: when it has no route for
   * the method the answer is a 405, even if a more general path would take the method. HEAD
   * takes the path's GET route unless the path has a HEAD route of its own.
   */
  match(method: string, path: string): Match<H> | null
  /** The table as given, in registration order. */
  readonly routes: readonly Route<H>[]
}

const METHODS: ReadonlySet<string> = new Set<string>([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
])
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
// RFC 3986 pchar without pct-encoded: static segments are compared with the raw path, so a
// segment holding anything a client must percent-encode (or '%' itself) could never match.
// '*' is refused too: it is legal, but in a route table it is almost surely a wildcard.
const STATIC_SEGMENT = /^[A-Za-z0-9\-._~!$&'()+,;=:@]*$/

/** A route as the trie keeps it: its param names, in order, name the trie's param values. */
interface Target<H> {
  route: Route<H>
  names: readonly string[]
  /** The match of a route without params, made on first use and shared. */
  match?: Match<H>
}

/** The params of a route that has none: shared, so frozen. */
const NO_PARAMS: Params = Object.freeze(Object.create(null) as Params)

/** Everything registered for one path shape (param names aside). */
interface Leaf<H> {
  any: Target<H> | null
  methods: Map<string, Target<H>>
  methodText: string | undefined
  /** Filled in once the table is complete. */
  allowed: Method[]
  text: string
}

interface Node<H> {
  statics: Map<string, Node<H>> | null
  param: Node<H> | null
  leaf: Leaf<H> | null
}

/**
 * Builds the router from a route table. Throws at start-up, naming the route, for any mistake in
 * the table: a path not starting with '/', an empty, non-identifier or repeated param name, a
 * static segment with a character a raw path cannot carry as is, an unknown method, a handler
 * that is not a function, the same method and path twice (also when only param names differ),
 * a '*' route beside specific methods on one path, or differing `methodText`s on one path.
 */
export function createRouter<H>(routes: readonly Route<H>[]): Router<H> {
  if (!Array.isArray(routes)) throw new Error('createRouter needs an array of routes')
  const root = newNode<H>()
  const leaves: Leaf<H>[] = []
  // Paths without params, looked up whole before the trie is walked: the walk would find the
  // same leaf (a static segment beats a param at every level), one segment at a time.
  const exact = new Map<string, Leaf<H>>()

  for (const route of routes) {
    const { names, node } = insert(root, route)
    if (node.leaf === null) {
      node.leaf = { any: null, methods: new Map(), methodText: undefined, allowed: [], text: '' }
      leaves.push(node.leaf)
    }
    if (names.length === 0) exact.set(route.path, node.leaf)
    addTarget(node.leaf, { route, names })
  }

  for (const leaf of leaves) {
    const registered = [...leaf.methods.keys()] as Method[]
    const get = leaf.methods.get('GET')
    const headFromGet = get !== undefined && !leaf.methods.has('HEAD')
    leaf.allowed = registered.flatMap((method): Method[] =>
      method === 'GET' && headFromGet ? ['GET', 'HEAD'] : [method],
    )
    // Only after listing `registered`: the derived text names the table's methods, not this one.
    if (headFromGet) leaf.methods.set('HEAD', get)
    leaf.text =
      leaf.methodText ??
      (registered.length === 1 ? `${registered[0]} only` : registered.join(' or '))
  }

  const table = Object.freeze([...routes])
  return {
    routes: table,
    match(method, path) {
      if (path.charCodeAt(0) !== 0x2f) return null
      const values: string[] = []
      const leaf = exact.get(path) ?? walk(root, path, 1, values)
      if (leaf === null) return null
      for (let i = 0; i < values.length; i++) {
        const raw = values[i]!
        if (raw.includes('%')) {
          try {
            values[i] = decodeURIComponent(raw)
          } catch {
            return null
          }
        }
      }
      const target = leaf.any ?? leaf.methods.get(method)
      if (target === undefined)
        return { found: false, allowed: leaf.allowed.slice(), text: leaf.text }
      const names = target.names
      // A route without params answers one shared match: nothing to allocate per request.
      if (names.length === 0)
        return (target.match ??= { found: true, route: target.route, params: NO_PARAMS })
      const params: Params = Object.create(null)
      for (let i = 0; i < names.length; i++) params[names[i]!] = values[i]!
      return { found: true, route: target.route, params }
    },
  }
}

function newNode<H>(): Node<H> {
  return { statics: null, param: null, leaf: null }
}

function describe(route: Route<unknown>): string {
  return `'${String(route.method)} ${String(route.path)}'`
}

function refuse(route: Route<unknown>, why: string): never {
  throw new Error(`route ${describe(route)}: ${why}`)
}

/** Checks one route's path and method and finds or makes its trie node. */
function insert<H>(root: Node<H>, route: Route<H>): { names: string[]; node: Node<H> } {
  if (route === null || typeof route !== 'object')
    throw new Error(`route ${String(route)} is not an object`)
  const { method, path } = route
  if (typeof path !== 'string' || !path.startsWith('/'))
    refuse(route, "the path must start with '/'")
  if (method !== '*' && !METHODS.has(method)) {
    refuse(route, `unknown method; use one of ${[...METHODS].join(', ')} or '*'`)
  }
  if (typeof route.handler !== 'function') refuse(route, 'the handler is not a function')

  const names: string[] = []
  let node = root
  for (const segment of path.slice(1).split('/')) {
    if (segment.startsWith(':')) {
      const name = segment.slice(1)
      if (name === '') refuse(route, "a param needs a name after ':'")
      if (!PARAM_NAME.test(name))
        refuse(route, `param name '${name}' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)`)
      if (names.includes(name)) refuse(route, `param name '${name}' appears twice`)
      names.push(name)
      node = node.param ??= newNode()
    } else {
      if (!STATIC_SEGMENT.test(segment)) {
        refuse(
          route,
          `segment '${segment}' has a character a raw request path cannot carry as is (or a '*' wildcard, which is not supported)`,
        )
      }
      node.statics ??= new Map()
      let child = node.statics.get(segment)
      if (child === undefined) node.statics.set(segment, (child = newNode()))
      node = child
    }
  }
  return { names, node }
}

function addTarget<H>(leaf: Leaf<H>, target: Target<H>): void {
  const { route } = target
  const { method } = route
  if (method === '*' ? leaf.methods.size > 0 : leaf.any !== null) {
    const other = leaf.any ?? leaf.methods.values().next().value!
    const why = `a path takes either one '*' route or routes for specific methods, and ${describe(other.route)} is already there`
    refuse(route, why)
  }
  const same = method === '*' ? leaf.any : leaf.methods.get(method)
  if (same !== null && same !== undefined)
    refuse(route, `the same method and path as ${describe(same.route)}`)
  if (method === '*') leaf.any = target
  else leaf.methods.set(method, target)

  const text = route.methodText
  if (text === undefined) return
  if (typeof text !== 'string' || text === '')
    refuse(route, 'methodText must be a non-empty string')
  if (leaf.methodText !== undefined && leaf.methodText !== text) {
    refuse(
      route,
      `methodText '${text}' differs from '${leaf.methodText}' given by another route of this path`,
    )
  }
  leaf.methodText = text
}

/**
 * Depth-first through the trie from the segment starting at `start`, static child before param
 * child, so a static branch that leads nowhere falls back to the param. Recursion is bounded by
 * the depth of the table, not of the path. Param segments are pushed onto `values` raw.
 */
function walk<H>(node: Node<H>, path: string, start: number, values: string[]): Leaf<H> | null {
  const slash = path.indexOf('/', start)
  const end = slash === -1 ? path.length : slash
  if (node.statics !== null) {
    const child = node.statics.get(path.slice(start, end))
    if (child !== undefined) {
      const leaf = slash === -1 ? child.leaf : walk(child, path, slash + 1, values)
      if (leaf !== null) return leaf
    }
  }
  const param = node.param
  if (param !== null && end > start) {
    values.push(path.slice(start, end))
    const leaf = slash === -1 ? param.leaf : walk(param, path, slash + 1, values)
    if (leaf !== null) return leaf
    values.pop()
  }
  return null
}
