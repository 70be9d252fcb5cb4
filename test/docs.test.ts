// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * The documents run as written. Every shell block of README.md and docs/*.md runs, in order, in
 * one bash session per file (so variables carry from block to block), against a freshly started
 * application: `startApp` as `npm start` runs it, with the development identity provider, on a
 * fresh database schema of this test (test/support/db.ts), a fresh one for each file. Each
 * answer a document shows (`#>` lines) is compared with the real output, and every request
 * must answer below 400 unless its answer is shown. test/support/doc-blocks.ts holds the
 * conventions (`#>` answers, placeholders, `sh setup` blocks and the commands they may hold).
 *
 * Exactly two things differ from a reader's terminal:
 *
 * - Ports. The documents name `http://localhost:3001` (notes), `http://localhost:3002`
 *   (tickets) and `http://localhost:3003` (the development provider). The test listens on free
 *   ports instead, so it never clashes with a running `npm start` or another test, and replaces
 *   exactly those three origins in each block's text (commands and answers) with
 *   `http://localhost:<its port>`. The services' public URLs are those same addresses, so
 *   answers that carry URLs match. Nothing else in the text is changed.
 * - Status codes. The session defines a `curl` function that runs the real curl with
 *   `-D <file>` added, which writes the answer's headers to a file of its own and changes
 *   nothing curl prints; the test reads each answer's status from those files, to check it
 *   against the status shown or, when none is shown, against 400.
 *
 * The session runs with `set -eo pipefail`, so a command that fails (curl unable to connect,
 * `node` unable to parse what it was piped) fails the test at its step.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/base/log.ts'
import { testDatabase } from './support/db.ts'
import {
  compareAnswer,
  parseShownJson,
  shellBlocks,
  SETUP_COMMANDS,
  type Step,
} from './support/doc-blocks.ts'
import { freePort } from './support/ports.ts'

const ROOT = new URL('..', import.meta.url).pathname
const DOCS = [
  'README.md',
  ...(await readdir(join(ROOT, 'docs')))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
const STEP_MS = 15_000

// ---- the conventions ----

test('a block is split into steps at its #> answers, with the status apart from the body', () => {
  const [block] = shellBlocks(
    [
      '# Title',
      '```sh',
      'x=1',
      'curl -s $T/a   # a comment',
      '#> 201 {"id":<id>,',
      '#>  "n":1}',
      'echo $x',
      '```',
    ].join('\n'),
  )
  assert.deepEqual(block!.steps, [
    {
      line: 3,
      commands: 'x=1\ncurl -s $T/a   # a comment',
      answer: { line: 5, status: 201, body: '{"id":<id>,\n "n":1}' },
    },
    { line: 7, commands: 'echo $x', answer: null },
  ])
})

test('an answer with no command before it, an unknown marker and a runnable command in a setup block are refused', () => {
  assert.throws(() => shellBlocks('```sh\n#> {}\n```'), /line 2: an answer \(#>\) with no command/)
  assert.throws(() => shellBlocks('```sh later\nls\n```'), /line 1: unknown marker 'later'/)
  assert.throws(
    () => shellBlocks('```sh setup\nnpm start\ncurl -s http://localhost:3001/\n```'),
    /line 3: 'curl -s http:\/\/localhost:3001\/' .* not a known setup command/,
  )
  assert.throws(
    () => shellBlocks('```\ncurl -s http://localhost:3001/\n```'),
    /line 2: shell commands in a block marked ''/,
  )
})

test('setup blocks accept the commands that install, start, test and back up the project', () => {
  const text = [
    '```sh setup',
    'npm install && npm start    # both services',
    'DATABASE_URL=postgres://me@127.0.0.1:5432/notes_tickets npm start',
    'npm test -- test/router.test.ts',
    'npm run backup -- notes.tar.gz',
    'npm run restore -- notes.tar.gz',
    'npm run restore -- notes.tar.gz --yes',
    'DATA_DIR=$(mktemp -d) npm start',
    'DATA_DIR=./data npm run restore -- notes.tar.gz',
    'createdb notes_tickets',
    'pg_dump "$DATABASE_URL" > notes.sql      # a server backup',
    'psql "$DATABASE_URL" < notes.sql',
    '```',
  ].join('\n')
  assert.equal(shellBlocks(text)[0]!.setup, true)
  assert.ok(SETUP_COMMANDS.length > 0)
})

test('JSON answers match structurally, placeholders match anything and … allows more', () => {
  assert.equal(
    compareAnswer('{"id":"groceries","edited":<edited>}', '{"edited":17,"id":"groceries"}\n'),
    null,
  )
  assert.equal(
    compareAnswer(
      '{"id":"groceries","edited":<edited>}',
      '{"id":"groceries","edited":17,"copy":{}}',
    ),
    "$: unexpected 'copy'",
  )
  assert.equal(
    compareAnswer('{"id":"groceries",…}', '{"id":"groceries","edited":17,"copy":{}}'),
    null,
  )
  assert.equal(
    compareAnswer('{"id":"groceries"}', '{"id":"shopping"}'),
    '$.id: expected "groceries", got "shopping"',
  )
  assert.equal(compareAnswer('{"token":"tt_…","n":[1,…]}', '{"token":"tt_abc","n":[1,2,3]}'), null)
  assert.equal(
    compareAnswer('{"token":"tt_<secret>"}', '{"token":"tk_abc"}'),
    '$.token: expected "tt_<secret>", got "tk_abc"',
  )
  assert.equal(compareAnswer('{"n":[1,…]}', '{"n":[]}'), '$.n: expected at least 1 elements, got 0')
  assert.equal(compareAnswer('{"a":1}', 'Not found'), 'the output is not JSON')
  assert.deepEqual(parseShownJson('{"a":"<b>","c":[…]}'), { a: '<b>', c: ['\u0000more'] })
})

test('text answers match line by line, literally apart from placeholders', () => {
  assert.equal(compareAnswer('logged in', 'logged in'), null)
  assert.equal(
    compareAnswer(
      '- web#1 [open] Fix it <http://x/web/1>\n- created: <time>',
      '- web#1 [open] Fix it <http://x/web/1>\r\n- created: 2026-11-24 10:00 UTC\n',
    ),
    null,
  )
  assert.equal(
    compareAnswer('logged in', 'logged out'),
    'line 1: expected "logged in", got "logged out"',
  )
  assert.equal(compareAnswer('a\nb', 'a'), 'line 2: missing (expected "b")')
  assert.equal(compareAnswer('a.b', 'aXb'), 'line 1: expected "a.b", got "aXb"')
  assert.equal(
    compareAnswer(
      'HTTP/1.1 302 Found\n…\nlocation: /x\n…\n\nbody',
      'HTTP/1.1 302 Found\r\ndate: now\r\nlocation: /x\r\n\r\nbody',
    ),
    null,
  )
  assert.equal(compareAnswer('a\n…\nb', 'a\nc'), 'line 2: expected "b", got "c"')
})

// ---- running the documents ----

/** One bash process; `run` sources a step's commands in it and answers what they printed. */
class Shell {
  private child: ChildProcess
  private stdout = ''
  private stderr = ''
  private exited: number | null = null
  private waiting: (() => void) | null = null
  private n = 0

  constructor(private dir: string) {
    this.child = spawn('bash', ['--noprofile', '--norc', '-s'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        LANG: 'C.UTF-8',
        DOCS_HEADERS: join(dir, '.headers'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child
      .stdout!.setEncoding('utf8')
      .on('data', (c: string) => ((this.stdout += c), this.waiting?.()))
    this.child.stderr!.setEncoding('utf8').on('data', (c: string) => (this.stderr += c))
    this.child.on('exit', (code) => ((this.exited = code ?? 1), this.waiting?.()))
    // Each curl dumps its headers to a file of its own, named by the time and the shell's pid
    // (subshells of pipes and $(…) included), so no process is started to record a status.
    this.child.stdin!.write(
      [
        'set -eo pipefail',
        'curl() { command curl -D "$DOCS_HEADERS/$EPOCHREALTIME-$BASHPID" "$@"; }',
        '',
      ].join('\n'),
    )
  }

  async run(
    commands: string,
  ): Promise<{ output: string; statuses: number[]; stderr: string; exit: number | null }> {
    const file = join(this.dir, `.step-${++this.n}.sh`)
    await writeFile(file, commands + '\n')
    await rm(join(this.dir, '.headers'), { recursive: true, force: true })
    await mkdir(join(this.dir, '.headers'))
    this.stdout = ''
    this.stderr = ''
    this.child.stdin!.write(`source ${file} < /dev/null\nprintf '\\036'\n`)
    const deadline = Date.now() + STEP_MS
    while (!this.stdout.includes('\u001e') && this.exited === null && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiting = resolve
        setTimeout(resolve, 100)
      })
    }
    this.waiting = null
    const statuses: number[] = []
    for (const name of (await readdir(join(this.dir, '.headers'))).sort()) {
      // With -L a file holds several answers; the last status line is the final one.
      const lines =
        (await readFile(join(this.dir, '.headers', name), 'latin1')).match(
          /^HTTP\/[\d.]+ \d{3}/gm,
        ) ?? []
      if (lines.length > 0) statuses.push(Number(lines.at(-1)!.slice(-3)))
    }
    const done = this.stdout.includes('\u001e')
    return {
      output: this.stdout.split('\u001e')[0]!,
      statuses,
      stderr: this.stderr,
      exit: done ? 0 : this.exited,
    }
  }

  close(): void {
    if (this.exited === null) this.child.kill()
  }
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')
}

/** Null when the step's output and statuses agree with what the document shows. */
function judge(step: Step, result: { output: string; statuses: number[] }): string | null {
  const { answer } = step
  const last = result.statuses.at(-1)
  const earlier = result.statuses.slice(0, -1).find((s) => s >= 400)
  if (earlier !== undefined)
    return `status ${earlier} before the step's last request, and no answer is shown for it`
  if (answer?.status != null) {
    if (last !== answer.status) return `status: shown ${answer.status}, got ${last ?? 'no answer'}`
  } else if (last !== undefined && last >= 400) {
    return `status ${last}, and no status is shown for it`
  }
  if (answer === null) return null
  const difference = compareAnswer(answer.body, result.output)
  return difference && `the answer differs (${difference})`
}

for (const file of DOCS) {
  test(`${file}: every shell block runs as written and answers what it shows`, async () => {
    const markdown = await readFile(join(ROOT, file), 'utf8')
    if (shellBlocks(markdown).every((b) => b.setup)) return

    const db = await testDatabase()
    const ports = { notes: await freePort(), tickets: await freePort(), devIdp: await freePort() }
    const config = loadConfig({
      HOST: '127.0.0.1',
      NOTES_PORT: String(ports.notes),
      TICKETS_PORT: String(ports.tickets),
      DEV_IDP_PORT: String(ports.devIdp),
      DEV_SIGNIN: '1',
    })
    const app = await startApp(config, {
      logger: createLogger(null),
      db: {
        sql: db.sql,
        kind: process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres',
        close: async () => {},
      },
    })
    const dir = await mkdtemp(join(tmpdir(), 'docs-'))
    const shell = new Shell(dir)
    const ORIGINS: [string, string][] = [
      ['http://localhost:3001', `http://localhost:${ports.notes}`],
      ['http://localhost:3002', `http://localhost:${ports.tickets}`],
      ['http://localhost:3003', `http://localhost:${ports.devIdp}`],
    ]
    const local = (text: string) => ORIGINS.reduce((t, [from, to]) => t.replaceAll(from, to), text)
    try {
      for (const block of shellBlocks(local(markdown)).filter((b) => !b.setup)) {
        for (const step of block.steps) {
          const result = await shell.run(step.commands)
          const where = `${file}:${step.line} (block at line ${block.line})`
          if (result.exit !== 0) {
            const how =
              result.exit === null
                ? `did not finish within ${STEP_MS / 1000} s`
                : `failed (exit ${result.exit})`
            assert.fail(
              `${where}: the commands ${how}\n${quote(step.commands)}\n  stderr:\n${quote(result.stderr)}\n  output:\n${quote(result.output)}`,
            )
          }
          const verdict = judge(step, result)
          if (verdict) {
            const shown = step.answer
              ? `${step.answer.status ?? ''} ${step.answer.body}`.trim()
              : '(none)'
            assert.fail(
              `${where}: ${verdict}\n${quote(step.commands)}\n  shown (line ${step.answer?.line ?? '-'}):\n${quote(shown)}\n  got (statuses ${result.statuses.join(', ') || 'none'}):\n${quote(result.output)}`,
            )
          }
        }
      }
    } finally {
      shell.close()
      await app.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
}
