/**
 * Reads the shell blocks of a Markdown document and compares a command's output with the answer
 * the document shows for it. test/docs.test.ts runs the blocks; the conventions are these:
 *
 * - A shell block is a fenced block whose info string is `sh`, `bash` or `shell`. The test runs
 *   it. `sh setup` marks a block of commands that install, start, test or back up the project;
 *   the test runs none of them, and each command in it must be one of `SETUP_COMMANDS`.
 * - An answer is shown by lines starting `#>` right after a command (comments to the shell, so a
 *   reader can paste the block as it is). `#> 201 {"id":"..."}` shows the status and the body;
 *   without a leading three-digit status only the body is compared. Several `#>` lines make one
 *   answer. Every request of a step must answer below 400, except a last one whose status is
 *   shown. The commands between two answers (or from the block's start) are one step, and the
 *   answer is their output.
 * - In an answer, `<words>` (letters, digits, spaces, `'`, `_`, `.`, `-`) stands for a value that
 *   varies (an id, a time, a secret) and matches anything; so does `…`. In JSON, a `<words>`
 *   value matches any value, `…` as a member of an object allows further members, and `…` as the
 *   last element of an array allows further elements; inside a string both match any text. An
 *   answer starting with `{` or `[` is compared as JSON, structurally; any other answer as
 *   text, line by line, literally apart from the placeholders, where a line that is just `…`
 *   stands for any number of lines (headers of `curl -i` a reader need not see, say).
 */

export interface ShellBlock {
  /** Line of the opening fence, 1-based. */
  line: number
  setup: boolean
  /** The block's text without the fences. */
  text: string
  steps: Step[]
}

export interface Step {
  /** Line of the step's first command. */
  line: number
  commands: string
  answer: Answer | null
}

export interface Answer {
  /** Line of the first `#>` line. */
  line: number
  status: number | null
  /** The body shown, `#> ` prefixes removed, lines joined with `\n`. */
  body: string
}

const SHELL_INFO = new Set(['sh', 'bash', 'shell'])
const FENCE = /^(`{3,}|~{3,})(.*)$/

/**
 * The commands a `sh setup` block may hold, and what stands in for each when the test runs the
 * documents. A block of them is checked, not run.
 */
export const SETUP_COMMANDS: { pattern: RegExp; instead: string }[] = [
  { pattern: /^npm (install|ci)$/, instead: 'the test runs inside an installed checkout' },
  {
    pattern: withEnv('npm start'),
    instead:
      'the test starts the application with startApp (development provider) on its own ports and database schema',
  },
  { pattern: withEnv('npm test( -- \\S+)*'), instead: 'the test is part of npm test' },
  { pattern: /^npm run check$/, instead: 'the type check is run by .ci/run, not by a test' },
  { pattern: /^npm run test:(unit|browser|faults)$/, instead: 'the test is part of npm test' },
  { pattern: withEnv('npm run bench( -- \\S+)*'), instead: 'benchmarks are not tests' },
  {
    pattern: withEnv('npm run (backup|restore|import-tickets) -- \\S+( --?\\S+)*'),
    instead: 'these open the database in a process of their own; their own tests cover them',
  },
  { pattern: /^createdb \S+$/, instead: 'the test works in a schema of its own' },
  { pattern: /^pg_dump .+$/, instead: 'a server backup, not a request to the services' },
  { pattern: /^(pg_restore|psql) .+$/, instead: 'a server restore, not a request to the services' },
]

/** `command` after any number of settings such as `DATABASE_URL=… ` or `DATA_DIR=$(mktemp -d) `. */
function withEnv(command: string): RegExp {
  return new RegExp(`^([A-Z_]+=(\\$\\([^)]*\\)|\\S+) )*${command}$`)
}

/** Every fenced block of `markdown` with its info string and line, in order. */
export function fencedBlocks(markdown: string): { line: number; info: string; text: string }[] {
  const lines = markdown.split('\n')
  const blocks: { line: number; info: string; text: string }[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (!open) continue
    const fence = open[1]!
    const start = i
    const body: string[] = []
    for (
      i++;
      i < lines.length &&
      !(lines[i]!.startsWith(fence) && lines[i]!.slice(fence.length).trim() === '');
      i++
    )
      body.push(lines[i]!)
    if (i === lines.length) throw new Error(`line ${start + 1}: a fenced block is not closed`)
    blocks.push({ line: start + 1, info: open[2]!.trim(), text: body.join('\n') })
  }
  return blocks
}

/**
 * The shell blocks of `markdown`, split into steps. Throws, naming the line, for an unknown
 * marker after `sh`, an answer with no command before it, a setup command the test does not
 * know, or shell commands in a block that is not marked as shell.
 */
export function shellBlocks(markdown: string): ShellBlock[] {
  const result: ShellBlock[] = []
  for (const block of fencedBlocks(markdown)) {
    const [language = '', ...markers] = block.info.split(/\s+/).filter(Boolean)
    if (!SHELL_INFO.has(language)) {
      const command = block.text
        .split('\n')
        .findIndex((l) => /^\s*(\$ )?(curl|npm|node|createdb|pg_dump) /.test(l))
      if (command >= 0 && language !== 'js' && language !== 'ts') {
        throw new Error(
          `line ${block.line + 1 + command}: shell commands in a block marked '${block.info}': mark it sh (or sh setup)`,
        )
      }
      continue
    }
    if (markers.length > 1 || (markers.length === 1 && markers[0] !== 'setup')) {
      throw new Error(
        `line ${block.line}: unknown marker '${markers.join(' ')}' (only 'sh setup' is known)`,
      )
    }
    const setup = markers[0] === 'setup'
    const steps = splitSteps(block.text, block.line + 1)
    if (setup) checkSetup(block.text, block.line + 1)
    result.push({ line: block.line, setup, text: block.text, steps })
  }
  return result
}

function splitSteps(text: string, firstLine: number): Step[] {
  const steps: Step[] = []
  const lines = text.split('\n')
  let commands: string[] = []
  let commandLine = firstLine
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (!line.startsWith('#>')) {
      if (commands.length === 0) commandLine = firstLine + i
      commands.push(line)
      continue
    }
    const answerLine = firstLine + i
    const shown: string[] = []
    for (; i < lines.length && lines[i]!.startsWith('#>'); i++)
      shown.push(lines[i]!.slice(2).replace(/^ /, ''))
    i--
    if (!commands.some(isCommand))
      throw new Error(`line ${answerLine}: an answer (#>) with no command before it`)
    const status = /^([1-5]\d\d)(?: |$)/.exec(shown[0]!)
    if (status) shown[0] = shown[0]!.slice(4)
    steps.push({
      line: commandLine,
      commands: commands.join('\n'),
      answer: {
        line: answerLine,
        status: status ? Number(status[1]) : null,
        body: shown.join('\n').trim(),
      },
    })
    commands = []
  }
  if (commands.some(isCommand))
    steps.push({ line: commandLine, commands: commands.join('\n'), answer: null })
  return steps
}

function isCommand(line: string): boolean {
  const t = line.trim()
  return t !== '' && !t.startsWith('#')
}

function checkSetup(text: string, firstLine: number): void {
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/\s+#.*$/, '').trim()
    if (code === '' || code.startsWith('#')) return
    for (const part of code.split(/\s*&&\s*/)) {
      if (!SETUP_COMMANDS.some((c) => c.pattern.test(part))) {
        throw new Error(
          `line ${firstLine + i}: '${part}' in a sh setup block is not a known setup command (test/support/doc-blocks.ts SETUP_COMMANDS); run it in a plain sh block`,
        )
      }
    }
  })
}

// ---- comparing answers ----

const PLACEHOLDER = /<[A-Za-z][A-Za-z0-9 '_.-]*>|…/g
const ANY = '\u0000any'
const MORE = '\u0000more'

/** A regular expression for a line or string of an answer: placeholders match any text. */
function textPattern(shown: string): RegExp {
  const parts = shown.split(PLACEHOLDER).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`)
}

/**
 * Turns an answer shown in JSON with placeholders into plain JSON: `<words>` outside strings
 * becomes a marker object, `…` a marker member or element. Returns the parsed value.
 */
export function parseShownJson(shown: string): unknown {
  let out = ''
  const stack: string[] = []
  for (let i = 0; i < shown.length; i++) {
    const c = shown[i]!
    if (c === '"') {
      let j = i + 1
      while (j < shown.length && shown[j] !== '"') j += shown[j] === '\\' ? 2 : 1
      out += shown.slice(i, j + 1)
      i = j
    } else if (c === '<') {
      const m = /^<[A-Za-z][A-Za-z0-9 '_.-]*>/.exec(shown.slice(i))
      if (!m) throw new Error(`a '<' that is not a placeholder at character ${i}`)
      out += JSON.stringify({ [ANY]: m[0] })
      i += m[0].length - 1
    } else if (c === '…') {
      out += stack.at(-1) === '{' ? `${JSON.stringify(MORE)}:0` : JSON.stringify(MORE)
    } else {
      if (c === '{' || c === '[') stack.push(c)
      if (c === '}' || c === ']') stack.pop()
      out += c
    }
  }
  return JSON.parse(out)
}

function describe(value: unknown): string {
  return (
    JSON.stringify(value)?.replaceAll(`{"${ANY}":`, '{any:').replaceAll(`"${MORE}"`, '…') ??
    String(value)
  )
}

/** Null when `actual` matches the shown JSON `expected`, else where and how it differs. */
function compareJson(expected: unknown, actual: unknown, path: string): string | null {
  if (
    expected !== null &&
    typeof expected === 'object' &&
    !Array.isArray(expected) &&
    ANY in expected
  )
    return null
  if (typeof expected === 'string') {
    if (typeof actual === 'string' && textPattern(expected).test(actual)) return null
    return `${path}: expected ${describe(expected)}, got ${JSON.stringify(actual)}`
  }
  if (expected === null || typeof expected !== 'object') {
    return Object.is(expected, actual)
      ? null
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`
    const open = expected.at(-1) === MORE
    const items = open ? expected.slice(0, -1) : expected
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return `${path}: expected ${open ? 'at least ' : ''}${items.length} elements, got ${actual.length}`
    }
    for (let i = 0; i < items.length; i++) {
      const d = compareJson(items[i], actual[i], `${path}[${i}]`)
      if (d) return d
    }
    return null
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
    return `${path}: expected an object, got ${JSON.stringify(actual)}`
  const shown = expected as Record<string, unknown>
  const got = actual as Record<string, unknown>
  for (const key of Object.keys(shown)) {
    if (key === MORE) continue
    if (!Object.hasOwn(got, key)) return `${path}.${key}: missing`
    const d = compareJson(shown[key], got[key], `${path}.${key}`)
    if (d) return d
  }
  if (!(MORE in shown)) {
    const extra = Object.keys(got).filter((k) => !Object.hasOwn(shown, k))
    if (extra.length > 0) return `${path}: unexpected ${extra.map((k) => `'${k}'`).join(', ')}`
  }
  return null
}

/**
 * Null when `output` matches the answer body shown, else a sentence saying where it differs.
 * JSON when the shown body starts with `{` or `[`, else text line by line.
 */
export function compareAnswer(shown: string, output: string): string | null {
  const actual = output.replace(/\r\n/g, '\n').replace(/\n+$/, '')
  if (/^[[{]/.test(shown)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(actual)
    } catch {
      return 'the output is not JSON'
    }
    return compareJson(parseShownJson(shown), parsed, '$')
  }
  const want = shown === '' ? [] : shown.split('\n').map((l) => l.trimEnd())
  const got = actual === '' ? [] : actual.split('\n').map((l) => l.trimEnd())
  return matchLines(want, 0, got, 0)
}

/** Text lines against shown lines; a shown line that is just `…` stands for any lines, none included. */
function matchLines(want: string[], w: number, got: string[], g: number): string | null {
  for (; w < want.length; w++, g++) {
    if (want[w] === '…') {
      if (w === want.length - 1) return null
      let first: string | null = null
      for (let skip = g; skip <= got.length; skip++) {
        const d = matchLines(want, w + 1, got, skip)
        if (d === null) return null
        first ??= d
      }
      return first
    }
    if (g >= got.length) return `line ${g + 1}: missing (expected ${JSON.stringify(want[w])})`
    if (!textPattern(want[w]!).test(got[g]!))
      return `line ${g + 1}: expected ${JSON.stringify(want[w])}, got ${JSON.stringify(got[g])}`
  }
  return g < got.length ? `line ${g + 1}: not expected (${JSON.stringify(got[g])})` : null
}
