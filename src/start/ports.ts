/** Start-up: the ports and public addresses of the services and the provider. */
import { createServer, type AddressInfo, type Server } from 'node:net'
import type { Config } from '../config.ts'
import type { ServiceName } from '../service.ts'

/** A service to start: its name, the port it listens on and the address people open. */
export interface PlannedService {
  name: ServiceName
  port: number
  publicUrl: string
  /** For a service told to take any port (0): the port, held until the service listens on it. */
  held: HeldPort | null
}

/**
 * The services' ports and addresses, decided before anything listens: the provider lets
 * sign-ins return only to these addresses.
 */
export async function planServices(config: Config): Promise<PlannedService[]> {
  const planned: PlannedService[] = []
  for (const name of config.services) {
    const configured = name === 'notes' ? config.notesPort : config.ticketsPort
    const held = configured === 0 ? await holdPort(config.host) : null
    const port = held?.port ?? configured
    planned.push({
      name,
      port,
      held,
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

/**
 * A port on `host` for a server told to take any (port 0) whose public address must name the
 * port before it listens. A socket listens on the port from now until the server listens on that
 * very socket in its place (`serve`'s `held`): a port merely found free and closed again could
 * be taken in between by anything on the machine (another process's server, the local end of an
 * outgoing connection), and then the server could not start.
 */
export interface HeldPort {
  port: number
  /** The listening socket, for the server that listens in its place. */
  take(): Server
  /** Closes the socket, unless a server took it. */
  release(): Promise<void>
}

export async function holdPort(host: string): Promise<HeldPort> {
  const socket = createServer()
  await new Promise<void>((resolve, reject) =>
    socket.once('error', reject).listen(0, host, resolve),
  )
  const { port } = socket.address() as AddressInfo
  let taken = false
  return {
    port,
    take() {
      taken = true
      return socket
    },
    release: () =>
      taken ? Promise.resolve() : new Promise<void>((resolve) => socket.close(() => resolve())),
  }
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
