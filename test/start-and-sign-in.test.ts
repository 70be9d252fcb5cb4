// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * The smoke test `.ci/run` also runs on the newest Node.js LTS: `npm start` (as its script runs
 * node) on a started embedded data directory, then a person signs in to the ticket tracker
 * through the development provider, the way a browser follows the redirects.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { startedDataDir } from './support/data-dir.ts'
import { startCommand } from './support/start-command.ts'

test('npm start serves the tracker, and a person signs in through the development provider and is known to /api/me', async () => {
  const dataDir = await startedDataDir('smoke-')
  const child = spawn(process.execPath, startCommand(), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      DEV_SIGNIN: '1',
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  try {
    const tickets = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = /^tickets: .*, open (\S+)$/.exec(line)
        if (m) resolve(m[1]!)
      })
      void exited.then((code) => reject(new Error(`npm start exited ${code}: ${stderr}`)))
    })
    // The tracker sends the person to the provider, which asks for a name, then sends them
    // back with a code, which the tracker turns into a session cookie.
    const toProvider = await fetch(`${tickets}/login`, { redirect: 'manual' })
    assert.equal(toProvider.status, 302)
    const providerUrl = new URL(toProvider.headers.get('location')!)
    const form = await fetch(providerUrl)
    assert.equal(form.status, 200)
    assert.match(await form.text(), /<label for="name">Name<\/label>/)
    providerUrl.searchParams.set('name', 'alice')
    const back = await fetch(providerUrl, { redirect: 'manual' })
    assert.equal(back.status, 302)
    const callback = await fetch(back.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: cookiesOf(toProvider) },
    })
    assert.equal(callback.status, 302, await callback.text())
    const me = await fetch(`${tickets}/api/me`, { headers: { cookie: cookiesOf(callback) } })
    assert.equal(me.status, 200)
    assert.equal((await me.json()).user.name, 'alice')
  } finally {
    child.kill('SIGTERM')
    assert.equal(await exited, 0, stderr)
  }
})

/** The `name=value` pairs a response sets, as a Cookie header sends them back. */
function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
}
