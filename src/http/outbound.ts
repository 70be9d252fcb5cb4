/**
 * Requests this server makes to addresses others gave it (webhook targets): a POST that refuses
 * to reach anything but the public internet unless told otherwise. The check runs on the
 * addresses DNS answers at connection time, so a name that resolved to a public address when it
 * was registered and to 127.0.0.1 now is refused now. Redirects are never followed (an answer
 * is an answer), so no second address goes unchecked. The client side of `node:http`; the
 * server side stays in `src/http/server.ts`.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Whether `address` (an IPv4 or IPv6 literal) is on the public internet, classified by
 * `ipaddr.js`: an IPv4 address whose range is plain unicast (not this network, private,
 * carrier-grade NAT, loopback, link-local where cloud metadata answers, multicast, broadcast or
 * reserved), or an IPv6 address whose range is global unicast. An IPv6 address that carries an
 * IPv4 address, in any of the forms that do (mapped `::ffff:a.b.c.d`, translated
 * `::ffff:0:a.b.c.d`, the deprecated compatible `::a.b.c.d`, 6to4 `2002:AABB:CCDD::`, NAT64
 * `64:ff9b::/96`, Teredo's server and its client), is judged by each IPv4 address it carries as
 * well, so `[::7f00:1]` is loopback. Local-use NAT64 (`64:ff9b:1::/48`) reaches whatever its
 * operator routes it to, and is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.split('%')[0]!
  if (isIP(bare) === 0) return false
  const parsed = ipaddr.parse(bare)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  const embedded = embeddedIPv4(v6)
  if (embedded === null) return v6.range() === 'unicast'
  return embedded.length > 0 && embedded.every((v4) => v4.range() === 'unicast')
}

/**
 * The IPv4 addresses an IPv6 address carries: null when it carries none (judge it as IPv6); an
 * empty list when its form may carry one that cannot be told (it is refused).
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = v6.parts
  const v4 = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4(p[6]!, p[7]!)]
    case 'rfc6052':
      // 64:ff9b::/96 carries the address in its last 32 bits; 64:ff9b:1::/48 is local use.
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? [v4(p[6]!, p[7]!)] : []
    case '6to4':
      return [v4(p[1]!, p[2]!)]
    case 'teredo':
      // The server's address, and the client's, stored inverted.
      return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)]
    case 'unspecified':
    case 'loopback':
      return null
    default:
      // The deprecated IPv4-compatible form: 96 zero bits, then the IPv4 address.
      if (p.slice(0, 6).every((x) => x === 0)) return [v4(p[6]!, p[7]!)]
      return null
  }
}

/** Why an address may not be reached, in words for the person who gave it. */
export const NOT_PUBLIC_ADDRESS =
  'the address is not on the public internet (loopback, private, link-local or reserved); set WEBHOOK_ALLOW_PRIVATE=1 to allow such targets'
export const NO_SUCH_HOST = 'the host name does not resolve'

/** Resolves `hostname` to every address DNS gives it (a literal resolves to itself). */
export function resolveAll(hostname: string): Promise<LookupAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  return new Promise((resolve, reject) =>
    dnsLookup(bare, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  )
}

/**
 * Checks that `hostname` resolves, and (unless `allowPrivate`) only to public addresses;
 * answers null when it may be reached, else the reason.
 */
export async function refuseHost(hostname: string, allowPrivate: boolean): Promise<string | null> {
  let addresses: LookupAddress[]
  try {
    addresses = await resolveAll(hostname)
  } catch {
    return NO_SUCH_HOST
  }
  if (addresses.length === 0) return NO_SUCH_HOST
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return NOT_PUBLIC_ADDRESS
  return null
}

/** What a POST came to: the status and the first bytes of the answer, or why there was none. */
export type Outcome =
  | { ok: true; status: number; answer: string; durationMs: number }
  | { ok: false; error: string; durationMs: number }

export interface PostOptions {
  /** The whole exchange, connection to the last byte read, must end within this. */
  timeoutMs: number
  allowPrivate: boolean
  /** How much of the answer to keep, in bytes. */
  keepBytes: number
  /** Milliseconds, for the duration. */
  clock?: () => number
  /** Ends the exchange at once when aborted (a service stopping), as a failure saying so. */
  signal?: AbortSignal
}

/** The error of an exchange ended by {@link PostOptions.signal}. */
export const POST_STOPPED = 'stopped: the service is shutting down'

/** POSTs `body` to `url` with `headers`; never throws, never follows a redirect. */
export function postChecked(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<Outcome> {
  const clock = options.clock ?? Date.now
  const started = clock()
  const elapsed = () => Math.max(0, Math.round(clock() - started))
  return new Promise((resolve) => {
    let settled = false
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(outcome)
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      resolve({ ok: false, error: 'not a valid URL', durationMs: 0 })
      return
    }
    // A literal address is connected to without a lookup, so it is checked here.
    const literal = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname
    if (isIP(literal) !== 0 && !options.allowPrivate && !isPublicAddress(literal)) {
      resolve({ ok: false, error: NOT_PUBLIC_ADDRESS, durationMs: 0 })
      return
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // The address is checked here, after DNS, for the connection actually made.
      lookup: ((
        hostname: string,
        lookupOptions: { all?: boolean },
        callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void,
      ) => {
        resolveAll(hostname).then(
          (addresses) => {
            if (addresses.length === 0) return callback(new Error(NO_SUCH_HOST))
            if (!options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
              return callback(new Error(NOT_PUBLIC_ADDRESS))
            if (lookupOptions.all) callback(null, addresses)
            else callback(null, addresses[0]!.address, addresses[0]!.family)
          },
          () => callback(new Error(NO_SUCH_HOST)),
        )
      }) as unknown as LookupFunction,
    })
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          error: `no answer within ${options.timeoutMs / 1000} s`,
          durationMs: elapsed(),
        }),
      options.timeoutMs,
    )
    const stopped = () => finish({ ok: false, error: POST_STOPPED, durationMs: elapsed() })
    if (options.signal?.aborted) stopped()
    options.signal?.addEventListener('abort', stopped, { once: true })
    req.on('close', () => options.signal?.removeEventListener('abort', stopped))
    req.on('error', (err) =>
      finish({
        ok: false,
        error:
          err.message === NOT_PUBLIC_ADDRESS || err.message === NO_SUCH_HOST
            ? err.message
            : `could not connect: ${err.message}`,
        durationMs: elapsed(),
      }),
    )
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      let kept = 0
      res.on('data', (chunk: Buffer) => {
        if (kept < options.keepBytes) {
          chunks.push(chunk.subarray(0, options.keepBytes - kept))
          kept += Math.min(chunk.length, options.keepBytes - kept)
        }
      })
      const done = () =>
        finish({
          ok: true,
          status: res.statusCode ?? 0,
          answer: Buffer.concat(chunks)
            .toString('utf8')
            .replace(/\u0000/g, ''),
          durationMs: elapsed(),
        })
      res.on('end', done)
      res.on('error', done)
      res.on('close', done)
    })
    req.end(body)
  })
}
