/**
 * What a person may type or paste to name another ticket in Parent and Blocked by
 * (docs/tickets-app.md, "Parent and Blocked by"): `web#12`, `WEB#12` (slugs are lower case), `#12` or `12`
 * (a ticket of this project), the ticket's address (`https://tickets.example/web/12`, this
 * service's own), or a ticket UUID. Pure, so the page's script and the API read a reference alike.
 */
import { isUuid, parseNumber } from './ids.ts'

/** A reference read: a ticket by UUID, by project and number, or text that names no ticket. */
export type TicketReference =
  | { kind: 'id'; id: string }
  | { kind: 'number'; project: string; number: number }
  | { kind: 'none' }

/**
 * The ticket `text` names. `here` is the project bare numbers belong to (a slug or id);
 * `publicUrl` is this service's address, the only one whose ticket addresses are read.
 */
export function readTicketReference(
  text: string,
  here: string,
  publicUrl: string,
): TicketReference {
  const t = text.trim()
  if (isUuid(t)) return { kind: 'id', id: t.toLowerCase() }
  const local = /^#?\s*([0-9]{1,10})$/.exec(t)
  if (local) return numbered(here, local[1]!)
  const named = /^([A-Za-z0-9-]{1,40})\s*#\s*([0-9]{1,10})$/.exec(t)
  if (named) return numbered(named[1]!.toLowerCase(), named[2]!)
  if (/^https?:\/\//i.test(t)) return fromAddress(t, publicUrl)
  return { kind: 'none' }
}

function numbered(project: string, digits: string): TicketReference {
  const number = parseNumber(digits)
  return number === null ? { kind: 'none' } : { kind: 'number', project, number }
}

/** A ticket page's address on this service: `/<slug>/<number>`, also the old `/projects/…` ones. */
function fromAddress(text: string, publicUrl: string): TicketReference {
  let url: URL
  let base: URL
  try {
    url = new URL(text)
    base = new URL(publicUrl)
  } catch {
    return { kind: 'none' }
  }
  if (url.origin !== base.origin) return { kind: 'none' }
  const prefix = base.pathname.replace(/\/$/, '')
  if (!url.pathname.startsWith(`${prefix}/`)) return { kind: 'none' }
  const path = url.pathname.slice(prefix.length)
  const page = /^\/(?:projects\/)?([a-z0-9-]{1,40})\/(?:tickets\/)?([0-9]{1,10})\/?$/.exec(path)
  if (page) return numbered(page[1]!, page[2]!)
  const old = /^\/tickets\/([0-9a-fA-F-]{36})\/?$/.exec(path)
  if (old && isUuid(old[1]!)) return { kind: 'id', id: old[1]!.toLowerCase() }
  return { kind: 'none' }
}
