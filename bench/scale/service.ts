/**
 * The real services started as `npm start` starts them: `node <the start script's options>
 * src/main.ts`, configured by the environment, logging every request to its stdout (read here
 * and dropped, as a log collector would take it). Used by the growth and http benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { startCommand, startOptions } from '../../test/support/start-command.ts'
import { pinned } from '../support.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface RunningService {
  /** Base URLs by service name, e.g. `notes`, `tickets`, and `devIdp` when it runs. */
  urls: Record<string, string>
  child: ChildProcess
  /** Bytes of log the process has written. */
  logged(): number
  stop(): Promise<void>
}

/**
 * Starts `src/main.ts` with `env` added to this process's environment (ports 0, so that the
 * system picks free ones, and the development identity provider on a free port too), on core 0
 * when cores can be pinned. `nodeOptions` replaces the start script's options when given;
 * `extraOptions` are added to them (for `--cpu-prof`). `wrapper` is a command that runs node in
 * the same process (valgrind); `child` is then the wrapper's process. `onSpawn` is handed the
 * process as soon as it exists (the memory bench samples its first start).
 */
export async function startService(
  env: Record<string, string>,
  opts: {
    nodeOptions?: string[]
    extraOptions?: string[]
    wrapper?: string[]
    onSpawn?: (child: ChildProcess) => void
    /** The checkout whose code runs (bench/side-by-side.bench.ts); this one unless given. */
    root?: string
  } = {},
): Promise<RunningService> {
  const command = [
    ...(opts.wrapper ?? []),
    process.execPath,
    ...startCommand(
      'src/main.ts',
      [],
      [...(opts.nodeOptions ?? startOptions()), ...(opts.extraOptions ?? [])],
    ),
  ]
  const [program, args] = pinned(0, command)
  const child = spawn(program, args, {
    cwd: opts.root ?? ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
      DEV_SIGNIN: '1',
      ...env,
    },
  })
  opts.onSpawn?.(child)
  const wanted = (env.SERVICES ?? 'notes,tickets').split(',')
  const urls: Record<string, string> = {}
  let bytes = 0
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length))
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      // The start-up log ends with `notes: the notes sync service on …, open <url>` (src/app.ts).
      const m = /^(\w+): .*, open (\S+)$/.exec(line)
      if (m) urls[m[1]!] = m[2]!
      const idp = /^dev-idp: .* at (\S+):/.exec(line)
      if (idp) urls.devIdp = idp[1]!
      if (wanted.every((name) => urls[name])) resolve()
    })
    child.once('exit', (code) => reject(new Error(`src/main.ts exited with ${code}`)))
  })
  return {
    urls,
    child,
    logged: () => bytes,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
