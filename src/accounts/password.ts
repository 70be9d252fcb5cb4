/**
 * Password hashing for the built-in accounts: scrypt from `node:crypto` with a random salt per
 * password, stored as `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be raised
 * later without losing the old hashes. Comparison is in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/** The fewest characters a password may have; there are no composition rules. */
export const PASSWORD_MIN = 8
/** The most: scrypt reads the whole password, so a huge one must not cost the server. */
export const PASSWORD_MAX = 1000

/** scrypt's parameters for a new hash (a stored hash names its own). */
export interface PasswordCost {
  readonly N: number
  readonly r: number
  readonly p: number
}

/**
 * The cost of every new hash: one of the OWASP Password Storage Cheat Sheet's equivalent scrypt
 * settings, 32 MiB of memory a hash rather than the 128 MiB of N = 2^17, which a small server
 * signing in several people at once could not spare.
 */
export const PASSWORD_COST: PasswordCost = Object.freeze({ N: 1 << 15, r: 8, p: 3 })
const KEY_BYTES = 32

function derive(
  password: string,
  salt: Buffer,
  options: { N: number; r: number; p: number },
): Promise<Buffer> {
  const opts: ScryptOptions = { ...options, maxmem: 256 * options.N * options.r }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, opts, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

/** The stored form of `password`, hashed at `cost`. */
export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, cost)
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** True when `password` matches `stored`; a malformed `stored` matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number]
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 1 << 20 || r > 32 || p > 16)
    return false
  const expected = Buffer.from(parts[5]!, 'base64url')
  if (expected.length !== KEY_BYTES) return false
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), { N, r, p })
  return timingSafeEqual(key, expected)
}

/**
 * A hash no password matches, for a sign-in whose name is unknown: at the cost of new hashes, it
 * costs the same time as a real one.
 */
export function unknownAccountHash(cost = PASSWORD_COST): string {
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`
}

/** Why a new password is refused, or null when it will do. */
export function passwordDefect(password: string): string | null {
  if ([...password].length < PASSWORD_MIN)
    return `A password has at least ${PASSWORD_MIN} characters.`
  if (password.length > PASSWORD_MAX) return `A password has at most ${PASSWORD_MAX} characters.`
  return null
}
