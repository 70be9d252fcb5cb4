/**
 * The token of a mail's unsubscribe link (docs/notifications.md, "Unsubscribe"): the person, the
 * kind, and the HMAC-SHA256 of both under the tracker's key, so the link needs no cookie and no
 * stored row, and nobody can make one for someone else.
 */
import { createHmac } from 'node:crypto'
import { sameText } from '../../http/guards.ts'

/** The kinds of mail a person turns on or off. */
export type MailKind = 'assigned' | 'mentioned' | 'watching' | 'due'

/** The token of an unsubscribe link: the person, the kind and their HMAC under `key`. */
export function unsubscribeToken(key: string, userId: string, kind: MailKind): string {
  return `${userId}.${kind}.${mac(key, userId, kind)}`
}

/** The person and kind of a token made with `key`, or null for any other text. */
export function readUnsubscribeToken(
  key: string,
  token: string,
): { userId: string; kind: MailKind } | null {
  const [userId, kind, sent, ...rest] = token.split('.')
  if (rest.length > 0 || !userId || !sent || !/^[a-z0-9]{1,40}$/.test(userId)) return null
  if (kind !== 'assigned' && kind !== 'mentioned' && kind !== 'watching' && kind !== 'due')
    return null
  const expected = mac(key, userId, kind)
  return sameText(sent, expected) ? { userId, kind } : null
}

function mac(key: string, userId: string, kind: string): string {
  return createHmac('sha256', key)
    .update(`unsubscribe\n${userId}\n${kind}`)
    .digest('base64url')
    .slice(0, 32)
}
