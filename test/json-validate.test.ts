import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'

import { reason, refuse } from '../src/http/refusal.ts'
import {
  decodeUtf8,
  NOT_AN_OBJECT,
  parseJsonBody,
  parseJsonObject,
  validateJson,
} from '../src/http/json-validate.ts'
import { prng } from './support/prng.ts'

/** JSONTestSuite's parsing cases, vendored with their licence (test/fixtures/jsontestsuite/LICENSE). */
const SUITE = fileURLToPath(new URL('./fixtures/jsontestsuite/test_parsing', import.meta.url))
const encode = (text: string): Uint8Array => new TextEncoder().encode(text)
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...encode(part)] : part)))

/** The one assertion helper: what validateJson says about `text`, shown with the text. */
function assertCheck(
  text: string,
  expected: number | 'ok',
  kind: 'syntax' | 'depth' = 'syntax',
): void {
  const shown =
    text.length > 60
      ? `${JSON.stringify(text.slice(0, 60))}... (${text.length} chars)`
      : JSON.stringify(text)
  const want = expected === 'ok' ? { ok: true } : { ok: false, offset: expected, kind }
  assert.deepEqual(validateJson(text), want, `validateJson(${shown})`)
}

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe('JSONTestSuite', () => {
  const files = readdirSync(SUITE)
    .filter((name) => name.endsWith('.json'))
    .sort()
  // ignoreBOM: docs/core.md, "JSON bodies", makes a byte-order mark a defect, so the reference must
  // see it too.
  const reference = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

  test('the suite is where we expect it, with all three kinds of file', () => {
    for (const prefix of ['y_', 'n_', 'i_']) {
      assert.ok(
        files.filter((name) => name.startsWith(prefix)).length > 30,
        `${prefix} files in ${SUITE}`,
      )
    }
  })

  for (const name of files) {
    const body = new Uint8Array(readFileSync(join(SUITE, name)))
    if (name.startsWith('y_')) {
      test(`parseJsonBody accepts ${name}`, () => {
        const result = parseJsonBody(body)
        assert.ok(result.ok, `${name} refused: ${result.ok ? '' : result.error}`)
      })
    } else if (name.startsWith('n_')) {
      test(`parseJsonBody refuses ${name}`, () => {
        const result = parseJsonBody(body)
        assert.ok(!result.ok, `${name} accepted`)
        assert.match(result.error, /^(invalid JSON|JSON nested too deep) at character \d+$/)
      })
    } else if (name.startsWith('i_')) {
      test(`parseJsonBody agrees with strict decoding plus JSON.parse on ${name}`, () => {
        let expected: boolean
        try {
          expected = parses(reference.decode(body))
        } catch {
          expected = false
        }
        assert.equal(parseJsonBody(body).ok, expected, name)
      })
    }
  }

  test('parseJsonBody refuses the UTF-8 byte-order mark before an empty object at character 0', () => {
    const body = new Uint8Array(
      readFileSync(join(SUITE, 'i_structure_UTF-8_BOM_empty_object.json')),
    )
    assert.deepEqual(parseJsonBody(body), { ok: false, error: 'invalid JSON at character 0' })
  })
})

describe('validateJson positions', () => {
  const cases: [title: string, text: string, expected: number | 'ok'][] = [
    ["refuses a trailing comma in an object at the comma's successor", '{"a":1,}', 7],
    ['refuses a missing comma between array elements at the second element', '[1 2]', 3],
    ['refuses a truncated literal at its end', 'tru', 3],
    ['refuses a digit after a leading zero at that digit', '01', 1],
    ['refuses an unterminated string at its end', '"ab', 3],
    ['refuses whitespace only at its length', '   \t\r\n', 6],
    ['refuses the empty text at 0', '', 0],
    ['refuses a byte-order mark at 0', '\ufeff{}', 0],
    ['refuses a trailing comma in an array at the closing bracket', '[1,]', 3],
    ['refuses a missing colon at the value', '{"a" 1}', 5],
    ['refuses a number as an object key at the number', '{1:2}', 1],
    ['refuses a single-quoted key at the quote', "{'a':1}", 1],
    ['refuses a lone minus at its end', '-', 1],
    ['refuses a minus followed by a letter at the letter', '-a', 1],
    ['refuses an exponent without digits at its end', '1e', 2],
    ['refuses a signed exponent without digits at its end', '1e+', 3],
    ['refuses an exponent without digits at the next character', '1e]', 2],
    ['refuses a fraction without digits at its end', '1.', 2],
    ['refuses a fraction followed by an exponent at the e', '1.e5', 2],
    ['refuses a leading dot at 0', '.5', 0],
    ['refuses a leading plus at 0', '+1', 0],
    ['refuses a leading zero inside an array at the second digit', '[01]', 2],
    ['refuses a negative leading zero at the second digit', '-01', 2],
    ['refuses a second fraction at the second dot', '1.5.2', 3],
    ['refuses hexadecimal at the x', '0x10', 1],
    ['refuses a truncated null at its end', 'nul', 3],
    ['refuses a misspelt null at the wrong letter', 'nulx', 3],
    ['refuses a literal with an extra letter at that letter', 'truex', 4],
    ['refuses a capitalised literal at 0', 'True', 0],
    ['refuses text after a complete object at that text', '{}x', 2],
    ['refuses a second top-level value after whitespace at the second value', '[] []', 3],
    ['refuses an unterminated string inside an array at the end', '["a', 3],
    ['refuses an unknown escape at the escaped character', '"a\\x"', 3],
    ['refuses a backslash at the end of the text at the end', '"a\\', 3],
    ['refuses a short unicode escape at the first non-hex digit', '"\\u12G4"', 5],
    ['refuses a truncated unicode escape at the end', '"\\u12', 5],
    ['refuses an escaped single quote at the quote', '"\\\'"', 2],
    ['refuses an unescaped tab in a string at the tab', '"a\tb"', 2],
    ['refuses an unescaped newline in a string at the newline', '["ab\n"]', 4],
    ['refuses an unescaped NUL in a string at the NUL', '"\u0000"', 1],
    ['refuses U+001F unescaped in a string at its index', '"x\u001f"', 2],
    ['refuses a comma before the first array element at the comma', '[,1]', 1],
    ['refuses a comma before the first member at the comma', '{,}', 1],
    ['refuses a missing value after a colon at the closing brace', '{"a":}', 5],
    ['refuses a closing bracket that does not match at that bracket', '[1}', 2],
    ['refuses a stray closing bracket at the top level at the bracket', ']', 0],
    ['refuses an unclosed array at the end', '[1, [2', 6],
    ['refuses an unclosed object after whitespace at the end', '{"a": 1 ', 8],
    ['refuses a non-breaking space as whitespace at that space', '\u00a01', 0],
    ['refuses a form feed as whitespace at the form feed', '[1,\f2]', 3],
    ['refuses a comment at the slash', '[1]//', 3],
    ['accepts a lone high surrogate escape', '"\\uD800"', 'ok'],
    ['accepts a lone low surrogate escape as a key', '{"\\uDFFF":0}', 'ok'],
    ['accepts a lone surrogate character, as JSON.parse does', '"\ud800"', 'ok'],
    ['accepts every escape RFC 8259 defines', '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uABcd"', 'ok'],
    ['accepts a scalar at the top level with surrounding whitespace', ' \t\r\n-0.5E-3 \n', 'ok'],
    ['accepts DEL and U+2028 unescaped in strings', '"\u007f\u2028"', 'ok'],
    ['accepts nested empty containers', '[{},[],{"a":[]}]', 'ok'],
  ]
  for (const [title, text, expected] of cases) {
    test(`validateJson ${title}`, () => {
      assertCheck(text, expected)
      if (expected === 'ok') assert.ok(parses(text), 'JSON.parse agrees')
      else assert.ok(!parses(text), 'JSON.parse agrees')
    })
  }
})

describe('validateJson depth', () => {
  test('validateJson accepts 512 nested arrays', () => {
    assertCheck('['.repeat(512) + ']'.repeat(512), 'ok')
  })

  test('validateJson refuses 513 nested arrays at the 513th bracket', () => {
    assertCheck('['.repeat(513) + ']'.repeat(513), 512, 'depth')
  })

  test('validateJson refuses 100,000 opening brackets at the 513th', () => {
    assertCheck('['.repeat(100_000), 512, 'depth')
  })

  test('validateJson counts objects and arrays together', () => {
    const text = '{"a":['.repeat(256) + '{}' + ']}'.repeat(256)
    assertCheck(text, 512 * 3, 'depth')
    assertCheck('{"a":['.repeat(255) + '{"b":[]}' + ']}'.repeat(255), 'ok')
  })

  test('validateJson reports going too deep before a later syntax defect', () => {
    assertCheck('['.repeat(600) + 'x', 512, 'depth')
  })

  test('validateJson reports a syntax defect before a later depth problem', () => {
    assertCheck('[x' + '['.repeat(600), 1)
  })

  test('validateJson honours a smaller maxDepth', () => {
    assert.deepEqual(validateJson('[[1]]', 2), { ok: true })
    assert.deepEqual(validateJson('[[[1]]]', 2), { ok: false, offset: 2, kind: 'depth' })
    assert.deepEqual(validateJson('1', 0), { ok: true })
    assert.deepEqual(validateJson('{}', 0), { ok: false, offset: 0, kind: 'depth' })
  })

  test('validateJson never throws RangeError on 100,000 levels of nesting', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    assert.deepEqual(validateJson(deep, Infinity), { ok: true })
    assert.deepEqual(validateJson('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000), Infinity), {
      ok: true,
    })
    assert.deepEqual(parseJsonBody(encode(deep)), {
      ok: false,
      error: 'JSON nested too deep at character 512',
    })
  })

  test('validateJson throws at a maxDepth that is not a count', () => {
    assert.throws(() => validateJson('1', -1), RangeError)
    assert.throws(() => validateJson('1', 1.5), RangeError)
    assert.throws(() => validateJson('1', Number.NaN), RangeError)
  })
})

describe('decodeUtf8', () => {
  const refused: [title: string, input: Uint8Array, offset: number][] = [
    ['a lone continuation byte', bytes('ab', [0x80]), 2],
    ['an overlong two-byte form of NUL', bytes('a', [0xc0, 0x80]), 1],
    ['an overlong two-byte form starting C1', bytes([0xc1, 0xbf]), 0],
    ['an overlong three-byte form', bytes('"', [0xe0, 0x80, 0xaf]), 1],
    ['an overlong four-byte form', bytes([0xf0, 0x8f, 0xbf, 0xbf]), 0],
    ['a high surrogate encoded in UTF-8', bytes('"x', [0xed, 0xa0, 0x80]), 2],
    ['a low surrogate encoded in UTF-8', bytes([0xed, 0xbf, 0xbf]), 0],
    ['a code point above U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a lead byte F5', bytes('1', [0xf5, 0x80, 0x80, 0x80]), 1],
    ['the bytes FE and FF', bytes([0xfe, 0xff]), 0],
    ['a three-byte sequence cut short at the end', bytes('é', [0xe2, 0x82]), 1],
    ['a three-byte sequence cut short by ASCII', bytes([0xe2, 0x28, 0xa1]), 0],
    ['a four-byte sequence cut short at the end', bytes([0xf0, 0x9f, 0x8e]), 0],
    ['a bad byte after an emoji, counted in UTF-16 units', bytes('🎉', [0xff]), 2],
  ]
  for (const [title, input, offset] of refused) {
    test(`decodeUtf8 refuses ${title} at ${offset}`, () => {
      assert.deepEqual(decodeUtf8(input), { ok: false, offset })
    })
  }

  test('decodeUtf8 decodes the edges of every range and keeps a byte-order mark', () => {
    const text = '\ufeff\u0000\u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\u{10000}\u{10ffff}'
    assert.deepEqual(decodeUtf8(encode(text)), { ok: true, text })
    assert.deepEqual(decodeUtf8(new Uint8Array()), { ok: true, text: '' })
  })

  test('decodeUtf8 finds the same place as a replacing decoder on random bytes', () => {
    const random = prng(7)
    const replacing = new TextDecoder('utf-8', { ignoreBOM: true })
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
    for (let i = 0; i < 20_000; i++) {
      // Mostly well-formed text with a few random bytes, so failures land after real prefixes.
      const good = encode(randomString(random, 12))
      const input = Uint8Array.from(good)
      const flips = Math.floor(random() * 3)
      for (let f = 0; f < flips && input.length > 0; f++) {
        input[Math.floor(random() * input.length)] = Math.floor(random() * 256)
      }
      let valid = true
      try {
        strict.decode(input)
      } catch {
        valid = false
      }
      const result = decodeUtf8(input)
      assert.equal(result.ok, valid, `bytes ${[...input].join(',')}`)
      if (!result.ok && !good.includes(0xbd)) {
        // Without U+FFFD in the input, the first one the replacing decoder writes marks the place.
        assert.equal(
          result.offset,
          replacing.decode(input).indexOf('\ufffd'),
          `bytes ${[...input].join(',')}`,
        )
      }
    }
  })
})

describe('parseJsonBody', () => {
  test('parseJsonBody returns the parsed value of a valid body', () => {
    assert.deepEqual(parseJsonBody(encode(' {"a":[1,2.5e1,"x\\n",true,null],"é":{}} ')), {
      ok: true,
      value: { a: [1, 25, 'x\n', true, null], é: {} },
    })
    assert.deepEqual(parseJsonBody(encode('"\\uD800"')), { ok: true, value: '\ud800' })
    assert.deepEqual(parseJsonBody(encode('0')), { ok: true, value: 0 })
  })

  test('parseJsonBody keeps a member named __proto__ as an own property', () => {
    const result = parseJsonBody(encode('{"__proto__":{"admin":true}}'))
    assert.ok(result.ok)
    assert.deepEqual(Object.keys(result.value as object), ['__proto__'])
    assert.equal(({} as Record<string, unknown>)['admin'], undefined)
  })

  const refusals: [title: string, body: Uint8Array, error: string][] = [
    ['a trailing comma', encode('{"a":1,}'), 'invalid JSON at character 7'],
    ['zero bytes', new Uint8Array(), 'invalid JSON at character 0'],
    ['a UTF-8 byte-order mark', bytes([0xef, 0xbb, 0xbf], '{}'), 'invalid JSON at character 0'],
    [
      'a bad byte where the text could go on',
      bytes('[1,', [0xff], '2]'),
      'invalid JSON at character 3',
    ],
    ['a bad byte after a complete value', bytes('{}', [0xff]), 'invalid JSON at character 2'],
    [
      'a bad byte inside a string, counted in UTF-16 units',
      bytes('["🎉é', [0xc0, 0x80], '"]'),
      'invalid JSON at character 5',
    ],
    [
      'a surrogate encoded in UTF-8 inside a string',
      bytes('"a', [0xed, 0xa0, 0x80], '"'),
      'invalid JSON at character 2',
    ],
    [
      'a syntax defect before a later bad byte, at the defect',
      bytes('[1 2', [0xff]),
      'invalid JSON at character 3',
    ],
    [
      'a control character before a later bad byte, at the control character',
      bytes('"\t', [0xff]),
      'invalid JSON at character 1',
    ],
    [
      'nesting too deep before a later bad byte, at the bracket',
      bytes('['.repeat(600), [0xff]),
      'JSON nested too deep at character 512',
    ],
    [
      '513 nested arrays',
      encode('['.repeat(513) + ']'.repeat(513)),
      'JSON nested too deep at character 512',
    ],
  ]
  for (const [title, body, error] of refusals) {
    test(`parseJsonBody refuses ${title} with "${error}"`, () => {
      assert.deepEqual(parseJsonBody(body), { ok: false, error })
    })
  }
})

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!

const STRING_PIECES = [
  'a',
  'b',
  'z',
  ' ',
  '0',
  '/',
  'é',
  '日',
  '🎉',
  '\ud800',
  '\udc00',
  '\u007f',
  '\u2028',
  '\\"',
  '\\\\',
  '\\/',
  '\\b',
  '\\f',
  '\\n',
  '\\r',
  '\\t',
  '\\u0041',
  '\\u00e9',
  '\\uD83C\\uDF89',
  '\\udc00',
  '\\uABCD',
  '\\uffff',
]
const WHITESPACE = ['', '', '', ' ', '\n', '\t', '\r\n', '  ']

function randomString(random: () => number, maxPieces: number): string {
  let out = ''
  const n = Math.floor(random() * maxPieces)
  for (let i = 0; i < n; i++) out += pick(random, STRING_PIECES)
  return out
}

function randomNumber(random: () => number): string {
  let out = random() < 0.3 ? '-' : ''
  out +=
    random() < 0.3
      ? '0'
      : String(1 + Math.floor(random() * 9)) +
        String(Math.floor(random() * 1000)).slice(0, Math.floor(random() * 4))
  if (random() < 0.3) out += '.' + String(Math.floor(random() * 10_000))
  if (random() < 0.3)
    out +=
      pick(random, ['e', 'E']) + pick(random, ['', '+', '-']) + String(Math.floor(random() * 400))
  return out
}

/** A valid JSON text, built as text so that whitespace and escapes vary. */
function randomJson(random: () => number, depth: number): string {
  const ws = (): string => pick(random, WHITESPACE)
  const kind = Math.floor(random() * (depth >= 5 ? 5 : 7))
  switch (kind) {
    case 0:
    case 1:
      return randomNumber(random)
    case 2:
    case 3:
      return `"${randomString(random, 6)}"`
    case 4:
      return pick(random, ['true', 'false', 'null'])
    case 5: {
      const n = Math.floor(random() * 4)
      const items: string[] = []
      for (let i = 0; i < n; i++) items.push(ws() + randomJson(random, depth + 1) + ws())
      return `[${items.join(',') || ws()}]`
    }
    default: {
      const n = Math.floor(random() * 4)
      const members: string[] = []
      for (let i = 0; i < n; i++) {
        members.push(
          `${ws()}"${randomString(random, 3)}"${ws()}:${ws()}${randomJson(random, depth + 1)}${ws()}`,
        )
      }
      return `{${members.join(',') || ws()}}`
    }
  }
}

const MUTATION_ALPHABET = [
  ...'{}[]:,"\\/ \t\n\r0123456789-+.eEtrufalsnxuAF\'',
  '\u0000',
  '\u001f',
  '\u00a0',
  '\ufeff',
  '\u2028',
  'é',
  '\ud800',
  '\f',
  '\v',
]

function mutate(random: () => number, text: string): string {
  const at = (): number => Math.floor(random() * (text.length + 1))
  const rounds = 1 + Math.floor(random() * 3)
  for (let r = 0; r < rounds; r++) {
    const i = at()
    switch (Math.floor(random() * 6)) {
      case 0:
        text = text.slice(0, i) + text.slice(i + 1)
        break
      case 1:
        text = text.slice(0, i) + pick(random, MUTATION_ALPHABET) + text.slice(i)
        break
      case 2:
        text = text.slice(0, i) + pick(random, MUTATION_ALPHABET) + text.slice(i + 1)
        break
      case 3:
        text = text.slice(0, i)
        break
      case 4: {
        const j = at()
        text = text.slice(0, Math.max(i, j)) + text.slice(Math.min(i, j))
        break
      }
      default: {
        const j = at()
        text = text.slice(0, Math.min(i, j)) + text.slice(Math.max(i, j))
      }
    }
  }
  return text
}

/**
 * A suffix that turns `prefix` into a valid JSON text, assuming some valid text starts with
 * `prefix`. Written apart from the validator, so that JSON.parse(prefix + suffix) is an
 * independent check that a reported offset does not stop short.
 */
function completion(prefix: string): string {
  const closers: string[] = []
  let last: 'start' | 'open' | 'comma' | 'colon' | 'key' | 'value' | 'scalar' = 'start'
  let scalar = ''
  let inString = false
  let isKey = false
  let backslash = false
  let hexLeft = 0
  for (const ch of prefix) {
    if (inString) {
      if (hexLeft > 0) hexLeft--
      else if (backslash) {
        backslash = false
        if (ch === 'u') hexLeft = 4
      } else if (ch === '\\') backslash = true
      else if (ch === '"') {
        inString = false
        last = isKey ? 'key' : 'value'
      }
      continue
    }
    if (' \t\n\r'.includes(ch)) {
      if (last === 'scalar') last = 'value'
    } else if (ch === '{' || ch === '[') {
      closers.push(ch === '{' ? '}' : ']')
      last = 'open'
    } else if (ch === '}' || ch === ']') {
      closers.pop()
      last = 'value'
    } else if (ch === ',') {
      last = 'comma'
    } else if (ch === ':') {
      last = 'colon'
    } else if (ch === '"') {
      inString = true
      isKey = closers.at(-1) === '}' && (last === 'open' || last === 'comma')
    } else if (last === 'scalar') {
      scalar += ch
    } else {
      scalar = ch
      last = 'scalar'
    }
  }
  let out = ''
  if (inString) {
    out += (backslash ? 'n' : '') + '0'.repeat(hexLeft) + '"'
    last = isKey ? 'key' : 'value'
  }
  if (last === 'scalar') {
    const word = ['true', 'false', 'null'].find((w) => w.startsWith(scalar))
    if (word !== undefined) out += word.slice(scalar.length)
    else if ('-.eE+'.includes(scalar.at(-1)!)) out += '0'
  }
  if (last === 'start') out += '0'
  for (let closer = closers.pop(); closer !== undefined; closer = closers.pop()) {
    if (last === 'key') out += ':0'
    else if (last === 'colon') out += '0'
    else if (last === 'comma') out += closer === '}' ? '"k":0' : '0'
    out += closer
    last = 'value'
  }
  return out
}

describe('validateJson against JSON.parse', () => {
  test('the completion helper closes the examples of docs/core.md, "JSON bodies"', () => {
    for (const prefix of [
      '',
      '  ',
      '{"a":1,',
      '[1 ',
      'tru',
      '"ab',
      '{"a"',
      '{"a":',
      '[1,[',
      '"\\u1',
      '"\\',
      '-',
      '1.',
      '1e+',
    ]) {
      assert.ok(parses(prefix + completion(prefix)), JSON.stringify(prefix + completion(prefix)))
    }
  })

  test('validateJson agrees with JSON.parse on 100,000 generated inputs and stops exactly where they go wrong', () => {
    const random = prng(20240601)
    let refused = 0
    for (let i = 0; i < 100_000; i++) {
      const valid = randomJson(random, 0)
      const text =
        random() < 0.2
          ? valid
          : mutate(random, pick(random, WHITESPACE) + valid + pick(random, WHITESPACE))
      const shown = `input #${i} ${JSON.stringify(text)}`
      const check = validateJson(text)
      if (check.ok !== parses(text))
        assert.fail(`${shown}: validateJson ${JSON.stringify(check)} but JSON.parse disagrees`)
      if (check.ok) continue
      refused++
      const n = check.offset
      if (check.kind !== 'syntax' || n < 0 || n > text.length)
        assert.fail(`${shown}: ${JSON.stringify(check)}`)
      // What comes after the defect cannot move it, and the text before it is a viable start.
      const before = validateJson(text.slice(0, n))
      if (!before.ok && before.offset !== n)
        assert.fail(`${shown}: prefix of ${n} gives ${JSON.stringify(before)}`)
      if (n < text.length) {
        const through = validateJson(text.slice(0, n + 1))
        if (through.ok || through.offset !== n)
          assert.fail(`${shown}: prefix of ${n + 1} gives ${JSON.stringify(through)}`)
      }
      const completed = text.slice(0, n) + completion(text.slice(0, n))
      if (!parses(completed))
        assert.fail(`${shown}: offset ${n}, but ${JSON.stringify(completed)} does not parse`)
    }
    // The mutations must actually produce a mix, or the comparison proves little.
    assert.ok(refused > 50_000 && refused < 95_000, `refused ${refused} of 100,000`)
  })

  test('parseJsonBody agrees with strict decoding plus JSON.parse on 20,000 bodies with damaged bytes', () => {
    const random = prng(5)
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
    for (let i = 0; i < 20_000; i++) {
      const body = encode(randomJson(random, 0))
      const flips = Math.floor(random() * 3)
      for (let f = 0; f < flips && body.length > 0; f++) {
        body[Math.floor(random() * body.length)] = pick(random, [
          0x80,
          0xbf,
          0xc0,
          0xe0,
          0xed,
          0xf4,
          0xf5,
          0xff,
          Math.floor(random() * 256),
        ])
      }
      let expected = false
      try {
        expected = parses(strict.decode(body))
      } catch {
        // Not UTF-8: what is expected stays as it was.
      }
      const result = parseJsonBody(body)
      const shown = `bytes ${[...body].join(',')}`
      if (result.ok !== expected)
        assert.fail(`${shown}: parseJsonBody ${JSON.stringify(result)}, expected ok ${expected}`)
      const decoded = decodeUtf8(body)
      if (!result.ok && !decoded.ok) {
        // Of a syntax defect and a bad byte, the earlier wins: never a place past the bad byte.
        const n = Number(/\d+$/.exec(result.error)![0])
        if (n > decoded.offset)
          assert.fail(`${shown}: ${result.error} is past the bad byte at ${decoded.offset}`)
      }
    }
  })

  test('parseJsonBody returns what JSON.parse returns on 5,000 generated valid bodies', () => {
    const random = prng(99)
    for (let i = 0; i < 5_000; i++) {
      // Raw lone surrogates cannot travel as UTF-8, so only escaped ones appear here.
      const text = randomJson(random, 0).replace(
        /[\ud800-\udfff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16)}`,
      )
      if (!parses(text)) continue
      assert.deepEqual(
        parseJsonBody(encode(text)),
        { ok: true, value: JSON.parse(text) },
        JSON.stringify(text),
      )
    }
  })
})

test('parseJsonObject refuses any JSON value but an object, in the same words for every service', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)
  assert.deepEqual(parseJsonObject(bytes('{"a":1}')), { ok: true, value: { a: 1 } })
  const badJson = (message: string, field?: string) =>
    refuse(400, reason('bad_json', message), field)
  for (const text of ['[]', 'null', '"x"', '1', 'true'])
    assert.deepEqual(parseJsonObject(bytes(text)), badJson(NOT_AN_OBJECT), text)
  assert.equal(NOT_AN_OBJECT, 'the body must be a JSON object')
  assert.deepEqual(parseJsonObject(bytes('{"a":')), badJson('invalid JSON at character 5'))
  assert.deepEqual(parseJsonObject(bytes('[]'), { field: 'body' }), badJson(NOT_AN_OBJECT, 'body'))
  assert.deepEqual(parseJsonObject(new Uint8Array(0)), badJson('invalid JSON at character 0'))
  assert.deepEqual(parseJsonObject(new Uint8Array(0), { emptyIsObject: true }), {
    ok: true,
    value: {},
  })
})
