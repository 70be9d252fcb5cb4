/**
 * Request bodies of the ticket service (docs/tickets-api.md, "Conventions", Bodies):
 * a JSON object whose fields are all strings, checked against the route's shape.
 */
import { parseJsonObject } from '../../http/json-validate.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import { textDefect } from '../../http/text.ts'
import {
  AUTHOR_REFUSED,
  fieldHasNul,
  fieldHasSurrogate,
  fieldNotString,
  fieldRequired,
  unknownField,
} from './messages.ts'

/**
 * What a route does with a field: `required` must be present and non-empty, `present` must be
 * present but may be empty (an empty `assignee` or `parent` means nobody or none), `optional`
 * may be left out.
 */
export type FieldRule = 'required' | 'present' | 'optional'

/** A route's fields, in the order they are reported when missing. */
export type Shape = Readonly<Record<string, FieldRule>>

/** A checked body: every field a string (null prototype). */
export type Body = Record<string, string>

/**
 * Checks raw body bytes against `shape`. Zero bytes count as an empty object, so a route with a
 * required field answers that the field is required. Fields are checked in the order the client
 * sent them (`author`, unknown, non-string), then required fields in the shape's order.
 */
export function checkBody(bytes: Uint8Array, shape: Shape): { ok: true; body: Body } | Refusal {
  const parsed = parseJsonObject(bytes, { emptyIsObject: true, field: 'body' })
  if (!parsed.ok) return parsed
  const body: Body = Object.create(null)
  for (const [name, field] of Object.entries(parsed.value)) {
    if (!Object.hasOwn(shape, name)) {
      return name === 'author'
        ? refuse(400, AUTHOR_REFUSED, 'author')
        : refuse(400, unknownField(name), name)
    }
    if (typeof field !== 'string') return refuse(400, fieldNotString(name), name)
    const refused = refuseText(name, field)
    if (refused) return refused
    body[name] = field
  }
  for (const [name, rule] of Object.entries(shape)) {
    if (rule === 'optional') continue
    const field = body[name]
    if (field === undefined || (rule === 'required' && field === ''))
      return refuse(400, fieldRequired(name), name)
  }
  return { ok: true, body }
}

/**
 * The ticket service's answer to text that cannot be stored as sent (src/http/text.ts): U+0000, which
 * PostgreSQL cannot hold, or a lone surrogate, which would be stored as U+FFFD or make the live
 * event's JSON fail in the database. A 400 naming `field`; null for good text.
 */
export function refuseText(field: string, value: string): Refusal | null {
  const defect = textDefect(value)
  if (defect === null) return null
  return refuse(400, defect === 'nul' ? fieldHasNul(field) : fieldHasSurrogate(field), field)
}
