/**
 * Strict JSON for request bodies: UTF-8 decoding, an RFC 8259 check that says where a text goes
 * wrong, and the two refusal messages (docs/core.md, "JSON bodies").
 *
 * The checker is a char-code scanner in the shape of jsonc-parser's: one position variable, an
 * explicit stack of open containers, no recursion, so no input can overflow the call stack. An
 * offset is the length of the longest prefix of the text that some valid JSON text starts with:
 * the index of the first character no valid text could have there, or the text's length when
 * the text ends too early.
 *
 * @module
 */
import { reason, refuse, type Refusal } from './refusal.ts'

/** The outcome of {@link decodeUtf8}. */
export type Utf8Result = { ok: true; text: string } | { ok: false; offset: number }

/** The outcome of {@link validateJson}. */
export type JsonCheck = { ok: true } | { ok: false; offset: number; kind: 'syntax' | 'depth' }

/** The outcome of {@link parseJsonBody}: the parsed value, or the refusal message for a 400. */
export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string }

// The depth limit of docs/core.md, "JSON bodies".
const MAX_JSON_DEPTH = 512

const TAB = 0x09
const LINE_FEED = 0x0a
const CARRIAGE_RETURN = 0x0d
const SPACE = 0x20
const QUOTE = 0x22
const PLUS = 0x2b
const COMMA = 0x2c
const MINUS = 0x2d
const DOT = 0x2e
const SLASH = 0x2f
const DIGIT_0 = 0x30
const DIGIT_1 = 0x31
const DIGIT_9 = 0x39
const COLON = 0x3a
const UPPER_A = 0x41
const UPPER_E = 0x45
const UPPER_F = 0x46
const OPEN_BRACKET = 0x5b
const BACKSLASH = 0x5c
const CLOSE_BRACKET = 0x5d
const LOWER_A = 0x61
const LOWER_B = 0x62
const LOWER_E = 0x65
const LOWER_F = 0x66
const LOWER_N = 0x6e
const LOWER_R = 0x72
const LOWER_T = 0x74
const LOWER_U = 0x75
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

// Past its first LONG_STRING characters, a string's plain runs are skipped by a sticky regular
// expression: on a 1 MB ASCII string-heavy document irregexp's native loop ran about 7 times
// faster than this file's charCodeAt loop, which alone reached only 0.3 to 0.5 of JSON.parse.
// Short strings (most keys) stay in the loop, where a regex call costs more than it saves.
const LONG_STRING = 16
const PLAIN_RUN = /[^\x00-\x1f"\\]*/y

const VALID: JsonCheck = Object.freeze({ ok: true })

// ignoreBOM keeps a byte-order mark in the text, where the checker refuses it at 0.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Decodes strict UTF-8: overlong forms, UTF-8-encoded surrogates, code points above U+10FFFF,
 * truncated sequences and stray continuation bytes are refused. A byte-order mark is kept.
 * On refusal, `offset` is the length (in UTF-16 units) of the text decoded before the first
 * ill-formed sequence.
 */
export function decodeUtf8(bytes: Uint8Array): Utf8Result {
  const { text, complete } = decodeValidPrefix(bytes)
  return complete ? { ok: true, text } : { ok: false, offset: text.length }
}

/**
 * Checks `text` against RFC 8259 (any value at the top, whitespace only space, tab, LF, CR),
 * allowing at most `maxDepth` nested arrays and objects. Reads left to right and reports the
 * first problem: a `syntax` offset per the module comment, or a `depth` offset at the bracket
 * that goes past the limit. Lone surrogate escapes such as `"\uD800"` are accepted, as
 * `JSON.parse` accepts them.
 */
export function validateJson(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonCheck {
  if (!(Number.isInteger(maxDepth) || maxDepth === Infinity) || maxDepth < 0) {
    throw new RangeError(`maxDepth must be a non-negative integer or Infinity, got ${maxDepth}`)
  }
  const end = text.length
  // Each open container's closing character; it also tells an object from an array.
  let closers: Uint8Array = new Uint8Array(32)
  let depth = 0
  let pos = skipWhitespace(text, 0, end)

  for (;;) {
    // A value starts at pos.
    if (pos >= end) return syntaxAt(end)
    const c = text.charCodeAt(pos)
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (depth === maxDepth) return { ok: false, offset: pos, kind: 'depth' }
      if (depth === closers.length) closers = grow(closers)
      const closer = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET
      closers[depth++] = closer
      pos = skipWhitespace(text, pos + 1, end)
      if (pos < end && text.charCodeAt(pos) === closer) {
        depth--
        pos++
      } else {
        if (closer === CLOSE_BRACE) {
          pos = scanKey(text, pos, end)
          if (pos < 0) return syntaxAt(~pos)
        }
        continue
      }
    } else if (c === QUOTE) {
      pos = scanString(text, pos + 1, end)
    } else if (c === LOWER_T) {
      pos = scanWord(text, pos, end, 'true')
    } else if (c === LOWER_F) {
      pos = scanWord(text, pos, end, 'false')
    } else if (c === LOWER_N) {
      pos = scanWord(text, pos, end, 'null')
    } else {
      pos = scanNumber(text, pos, end)
    }
    if (pos < 0) return syntaxAt(~pos)

    // A value ends at pos: close containers until a comma asks for the next value.
    for (;;) {
      pos = skipWhitespace(text, pos, end)
      if (depth === 0) return pos === end ? VALID : syntaxAt(pos)
      if (pos >= end) return syntaxAt(end)
      const next = text.charCodeAt(pos)
      const closer = closers[depth - 1]
      if (next === closer) {
        depth--
        pos++
        continue
      }
      if (next !== COMMA) return syntaxAt(pos)
      pos = skipWhitespace(text, pos + 1, end)
      if (closer === CLOSE_BRACE) {
        pos = scanKey(text, pos, end)
        if (pos < 0) return syntaxAt(~pos)
      }
      break
    }
  }
}

/**
 * Turns a request body into a value: strict UTF-8, then {@link validateJson}, then
 * `JSON.parse`. Refusals carry the exact message for the client:
 * `invalid JSON at character <n>` or `JSON nested too deep at character <n>`. An ill-formed
 * UTF-8 sequence counts as a character no JSON text can have at its place, so a syntax or depth
 * problem before it is reported first. Zero bytes get `invalid JSON at character 0`; callers
 * answer "missing or empty" before calling this.
 */
export function parseJsonBody(bytes: Uint8Array): JsonBody {
  const { text, complete } = decodeValidPrefix(bytes)
  const check = validateJson(text)
  if (!check.ok) return defect(check.kind, check.offset)
  if (!complete) return defect('syntax', text.length)
  return { ok: true, value: JSON.parse(text) }
}

/** The refusal of a body that is JSON but not an object: the same words in every service. */
export const NOT_AN_OBJECT = 'the body must be a JSON object'

/**
 * The one check of a body that must be a JSON object: {@link parseJsonBody}, then
 * {@link NOT_AN_OBJECT} for any other value; a refusal is a 400 `bad_json` naming `field` when
 * given. With `emptyIsObject`, zero bytes are `{}` (so a route answers which field is missing);
 * without, they are refused as {@link parseJsonBody} does.
 */
export function parseJsonObject(
  bytes: Uint8Array,
  options: { emptyIsObject?: boolean; field?: string } = {},
): { ok: true; value: Record<string, unknown> } | Refusal {
  if (bytes.length === 0 && options.emptyIsObject) return { ok: true, value: {} }
  const parsed = parseJsonBody(bytes)
  if (!parsed.ok) return refuse(400, reason('bad_json', parsed.error), options.field)
  const value = parsed.value
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return refuse(400, reason('bad_json', NOT_AN_OBJECT), options.field)
  return { ok: true, value: value as Record<string, unknown> }
}

function defect(kind: 'syntax' | 'depth', offset: number): JsonBody {
  const error =
    kind === 'depth'
      ? `JSON nested too deep at character ${offset}`
      : `invalid JSON at character ${offset}`
  return { ok: false, error }
}

function syntaxAt(offset: number): JsonCheck {
  return { ok: false, offset, kind: 'syntax' }
}

function grow(closers: Uint8Array): Uint8Array {
  const bigger = new Uint8Array(closers.length * 2)
  bigger.set(closers)
  return bigger
}

// The scanners below take the position to start at and return the position after what they
// read, or ~offset (always negative) for the offset of a defect.

function skipWhitespace(text: string, pos: number, end: number): number {
  while (pos < end) {
    const c = text.charCodeAt(pos)
    if (c !== SPACE && c !== LINE_FEED && c !== CARRIAGE_RETURN && c !== TAB) break
    pos++
  }
  return pos
}

/** An object member's name and its colon, up to the start of the member's value. */
function scanKey(text: string, pos: number, end: number): number {
  if (pos >= end) return ~end
  if (text.charCodeAt(pos) !== QUOTE) return ~pos
  pos = scanString(text, pos + 1, end)
  if (pos < 0) return pos
  pos = skipWhitespace(text, pos, end)
  if (pos >= end) return ~end
  if (text.charCodeAt(pos) !== COLON) return ~pos
  return skipWhitespace(text, pos + 1, end)
}

/** A string's contents and closing quote; pos is just after the opening quote. */
function scanString(text: string, pos: number, end: number): number {
  const long = pos + LONG_STRING
  while (pos < end) {
    const c = text.charCodeAt(pos)
    if (c === QUOTE) return pos + 1
    if (c === BACKSLASH) {
      pos = scanEscape(text, pos + 1, end)
      if (pos < 0) return pos
    } else if (c < SPACE) {
      return ~pos
    } else if (pos < long) {
      pos++
    } else {
      PLAIN_RUN.lastIndex = pos
      PLAIN_RUN.test(text)
      pos = PLAIN_RUN.lastIndex
    }
  }
  return ~end
}

/** pos is just after the backslash (RFC 8259 section 7). */
function scanEscape(text: string, pos: number, end: number): number {
  if (pos >= end) return ~end
  switch (text.charCodeAt(pos)) {
    case QUOTE:
    case BACKSLASH:
    case SLASH:
    case LOWER_B:
    case LOWER_F:
    case LOWER_N:
    case LOWER_R:
    case LOWER_T:
      return pos + 1
    case LOWER_U:
      for (let i = pos + 1; i < pos + 5; i++) {
        if (i >= end) return ~end
        if (!isHexDigit(text.charCodeAt(i))) return ~i
      }
      return pos + 5
    default:
      return ~pos
  }
}

function isHexDigit(c: number): boolean {
  return (
    (c >= DIGIT_0 && c <= DIGIT_9) ||
    (c >= LOWER_A && c <= LOWER_F) ||
    (c >= UPPER_A && c <= UPPER_F)
  )
}

/** `true`, `false` or `null`, whose first letter is already known to match. */
function scanWord(text: string, pos: number, end: number, word: string): number {
  for (let i = 1; i < word.length; i++) {
    if (pos + i >= end) return ~end
    if (text.charCodeAt(pos + i) !== word.charCodeAt(i)) return ~(pos + i)
  }
  return pos + word.length
}

/**
 * RFC 8259 section 6: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?.
 * Also the catch-all for a character that cannot start a value.
 */
function scanNumber(text: string, pos: number, end: number): number {
  if (text.charCodeAt(pos) === MINUS) {
    pos++
    if (pos >= end) return ~end
  }
  const first = text.charCodeAt(pos)
  if (first === DIGIT_0) {
    // After a leading zero only a fraction, an exponent or the end of the number may follow.
    pos++
  } else if (first >= DIGIT_1 && first <= DIGIT_9) {
    pos = skipDigits(text, pos + 1, end)
  } else {
    return ~pos
  }
  if (pos < end && text.charCodeAt(pos) === DOT) {
    pos = scanDigits(text, pos + 1, end)
    if (pos < 0) return pos
  }
  if (pos < end) {
    const c = text.charCodeAt(pos)
    if (c === LOWER_E || c === UPPER_E) {
      pos++
      if (pos < end) {
        const sign = text.charCodeAt(pos)
        if (sign === PLUS || sign === MINUS) pos++
      }
      pos = scanDigits(text, pos, end)
    }
  }
  return pos
}

/** One or more digits. */
function scanDigits(text: string, pos: number, end: number): number {
  if (pos >= end) return ~end
  const c = text.charCodeAt(pos)
  if (c < DIGIT_0 || c > DIGIT_9) return ~pos
  return skipDigits(text, pos + 1, end)
}

function skipDigits(text: string, pos: number, end: number): number {
  while (pos < end) {
    const c = text.charCodeAt(pos)
    if (c < DIGIT_0 || c > DIGIT_9) break
    pos++
  }
  return pos
}

/** The longest well-formed prefix, decoded, and whether it is all of `bytes`. */
function decodeValidPrefix(bytes: Uint8Array): { text: string; complete: boolean } {
  try {
    return { text: strictUtf8.decode(bytes), complete: true }
  } catch {
    // The decoder does not say where it failed; find the place once, on this slow path only.
    return {
      text: strictUtf8.decode(bytes.subarray(0, wellFormedUtf8Length(bytes))),
      complete: false,
    }
  }
}

/** Index of the first byte of the first ill-formed sequence (Unicode Table 3-7), or the length. */
function wellFormedUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length
  let i = 0
  while (i < end) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    let trailing: number
    // The second byte's range narrows to rule out overlong forms (E0, F0), surrogates (ED) and
    // code points above U+10FFFF (F4); C0, C1 and F5..FF never start a sequence.
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) {
      trailing = 1
    } else if (lead >= 0xe0 && lead <= 0xef) {
      trailing = 2
      if (lead === 0xe0) low = 0xa0
      else if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      trailing = 3
      if (lead === 0xf0) low = 0x90
      else if (lead === 0xf4) high = 0x8f
    } else {
      return i
    }
    for (let k = 1; k <= trailing; k++) {
      const b = bytes[i + k]
      if (b === undefined || b < low || b > high) return i
      low = 0x80
      high = 0xbf
    }
    i += trailing + 1
  }
  return end
}
