/** `npm start`: reads the settings, starts the application, and stops it on SIGTERM or SIGINT. */
import { startApp } from './app.ts'
import { loadConfig, loadEnvFile } from './config.ts'
import { createLogger } from './base/log.ts'

const logger = createLogger()
let config
try {
  loadEnvFile()
  config = loadConfig()
} catch (err) {
  console.error(`configuration: ${(err as Error).message}`)
  process.exit(1)
}

const app = await startApp(config, { logger }).catch((err: Error) => {
  console.error(`start failed: ${err.message}`)
  process.exit(1)
})

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    logger.line(`${signal}: stopping (requests in flight get up to 10 s)`)
    app.close().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(`stop failed: ${err.message}`)
        process.exit(1)
      },
    )
  })
}
