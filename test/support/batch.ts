/**
 * The entry of every test process test/run.ts starts: runs the test files it is handed, one
 * after the other, each in a suite of its own named for the file, so that a file's `before` and
 * `after` hooks run around its own tests and the next file starts once they have run. The files
 * of the unit tier share a process this way, several at a time: a file no longer pays for
 * starting node, loading the packages and the project's modules, and compiling them again (in a
 * shared process, a typical unit file used about a third of the CPU it used in one of its own).
 *
 * `TEST_BATCH` holds the files as JSON, `[name, bundle]` pairs. On file descriptor 3 the runner
 * reads a line as each file starts (`start <name>`) and ends (`end <name> <cpu seconds>`), which
 * gives it each file's time and CPU, names the file that was running when a process hung or
 * crashed, and tells it which files never started.
 */
import { writeSync } from 'node:fs'
import { describe } from 'node:test'
import { pathToFileURL } from 'node:url'

const files = JSON.parse(process.env.TEST_BATCH ?? '[]') as [name: string, bundle: string][]

const say = (line: string) => writeSync(3, `${line}\n`)

for (const [name, bundle] of files) {
  say(`start ${name}`)
  const before = process.cpuUsage()
  // Resolves once the suite has ended, its `after` hooks included.
  await describe(name, async () => {
    await import(pathToFileURL(bundle).href)
  })
  const { user, system } = process.cpuUsage(before)
  say(`end ${name} ${(user + system) / 1e6}`)
}
