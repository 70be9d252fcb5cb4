/** Random ids and secrets: every random value the services make comes from here. */
import { createHash, randomBytes } from 'node:crypto'

/** `bytes` random bytes as base64url text (session ids, login codes, tokens, nonces). */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url')
}

/** `bytes` random bytes as standard base64 text (webhook signing secrets, as Standard Webhooks writes them). */
export function randomBase64(bytes: number): string {
  return randomBytes(bytes).toString('base64')
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A fresh 12-character id of a-z0-9 (about 62 bits): users, projects, tokens. */
export function recordId(): string {
  // 252 is the largest multiple of 36 below 256: bytes above it are skipped to keep it uniform.
  let out = ''
  while (out.length < 12) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && out.length < 12) out += ALPHABET[byte % 36]
    }
  }
  return out
}

/** The stored form of a secret (a token, a session id, an invite or sign-up link): its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}
