/** Start-up: the ports and public addresses of the services and the provider. */
import { createServer, type AddressInfo } from 'node:net'
import type { Config } from '../config.ts'
import type { ServiceName } from '../service.ts'

/** A service to start: its name, the port it listens on and the address people open. */
export interface PlannedService {
  name: ServiceName
  port: number
  publicUrl: string
}

/**
 * The services' ports and addresses, decided before anything listens: the provider lets
 * sign-ins return only to these addresses.
 */
export async function planServices(config: Config): Promise<PlannedService[]> {
  const planned: PlannedService[] = []
  for (const name of config.services) {
    const configured = name === 'notes' ? config.notesPort : config.ticketsPort
    const port = configured === 0 ? await freePort(config.host) : configured
    planned.push({
      name,
      port,
      publicUrl: publicUrlOf(
        name === 'notes' ? config.notesUrl : config.ticketsUrl,
        config.host,
        configured,
        port,
      ),
    })
  }
  return planned
}

/**
 * The address to open. Unset, `NOTES_URL` and `TICKETS_URL` are `http://localhost:<port>`; this
 * puts in the port really listened on (for port 0), and the bound address when `HOST` names one
 * other than this machine's loopback or every address, so that the printed address, the bound
 * one and the one the sign-in returns to (where the cookie lives) are the same.
 */
export function publicUrlOf(
  url: string,
  host: string,
  configuredPort: number,
  port: number,
): string {
  if (url !== `http://localhost:${configuredPort}`) return url
  const local = ['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::', ''].includes(host)
  return `http://${local ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`
}

/** A free port on `host`, for a server told to take any (port 0) whose public URL must name it. */
export async function freePort(host: string): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Runs `listen`; a port in use becomes a message naming the variable that moves it. */
export async function portNamed<T>(
  variable: string,
  port: number,
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    throw new Error(
      `port ${port} is already in use by another program: set ${variable} to a free port`,
      { cause: err },
    )
  }
}
