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
import { BlockList, isIP, type LookupFunction } from 'node:net'

/** Addresses that are not the public internet: this machine, private networks, link-local (cloud metadata), and the reserved ranges. */
const NOT_PUBLIC = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, where cloud metadata services answer
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4')
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: could reach an IPv4 address unchecked
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local (fd00:ec2::254 is a metadata address)
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6')
}

/** Whether `address` (an IPv4 or IPv6 literal) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  if (family === 6) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (mapped) return isPublicAddress(mapped[1]!)
    return !NOT_PUBLIC.check(address, 'ipv6')
  }
  return !NOT_PUBLIC.check(address, 'ipv4')
}

/** Why an address may not be reached, in words for the person who gave it. */
export const NOT_PUBLIC_ADDRESS = 'the address is not on the public internet (loopback, private, link-local or reserved); set WEBHOOK_ALLOW_PRIVATE=1 to allow such targets'
export const NO_SUCH_HOST = 'the host name does not resolve'

/** Resolves `hostname` to every address DNS gives it (a literal resolves to itself). */
export function resolveAll(hostname: string): Promise<LookupAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  return new Promise((resolve, reject) => dnsLookup(bare, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))))
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
}

/** POSTs `body` to `url` with `headers`; never throws, never follows a redirect. */
export function postChecked(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<Outcome> {
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
      lookup: ((hostname: string, lookupOptions: { all?: boolean }, callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void) => {
        resolveAll(hostname).then(
          (addresses) => {
            if (addresses.length === 0) return callback(new Error(NO_SUCH_HOST))
            if (!options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return callback(new Error(NOT_PUBLIC_ADDRESS))
            if (lookupOptions.all) callback(null, addresses)
            else callback(null, addresses[0]!.address, addresses[0]!.family)
          },
          () => callback(new Error(NO_SUCH_HOST)),
        )
      }) as unknown as LookupFunction,
    })
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${options.timeoutMs / 1000} s`, durationMs: elapsed() }), options.timeoutMs)
    req.on('error', (err) => finish({ ok: false, error: err.message === NOT_PUBLIC_ADDRESS || err.message === NO_SUCH_HOST ? err.message : `could not connect: ${err.message}`, durationMs: elapsed() }))
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      let kept = 0
      res.on('data', (chunk: Buffer) => {
        if (kept < options.keepBytes) {
          chunks.push(chunk.subarray(0, options.keepBytes - kept))
          kept += Math.min(chunk.length, options.keepBytes - kept)
        }
      })
      const done = () => finish({ ok: true, status: res.statusCode ?? 0, answer: Buffer.concat(chunks).toString('utf8').replace(/\u0000/g, ''), durationMs: elapsed() })
      res.on('end', done)
      res.on('error', done)
      res.on('close', done)
    })
    req.end(body)
  })
}
