/**
 * A kept-alive HTTP/1.1 connection for the benchmarks' client processes: one request at a time,
 * written as one string, and an answer read by its `content-length`. It does what a page's
 * `fetch` asks of a server and little else, so the client's own CPU, on the same few cores as
 * the server, stays small: node's HTTP client measured more CPU a request than the server it
 * measured.
 */
import { connect, type Socket } from 'node:net'

export interface Answer {
  status: number
  body: string
}

const HEAD_END = Buffer.from('\r\n\r\n')

export class HttpConnection {
  readonly #socket: Socket
  #received: Buffer = Buffer.alloc(0)
  #waiting: { resolve(answer: Answer): void; reject(err: Error): void } | null = null

  constructor(url: string) {
    const { hostname, port } = new URL(url)
    this.#socket = connect(Number(port), hostname)
    this.#socket.setNoDelay(true)
    this.#socket.on('data', (chunk: Buffer) => this.#read(chunk))
    this.#socket.on('error', (err) => this.#fail(err))
    this.#socket.on('close', () => this.#fail(new Error('connection closed')))
  }

  /** Sends one request; `headers` are `name: value` lines without the line ends. */
  request(method: string, path: string, headers: string[], body = ''): Promise<Answer> {
    if (this.#waiting) throw new Error('one request at a time')
    if (this.#socket.destroyed) return Promise.reject(new Error('connection closed'))
    const length = Buffer.byteLength(body)
    const head = [
      `${method} ${path} HTTP/1.1`,
      'host: bench',
      ...headers,
      ...(length > 0 ? [`content-length: ${length}`] : []),
    ]
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject }
      this.#socket.write(`${head.join('\r\n')}\r\n\r\n${body}`)
    })
  }

  close(): void {
    this.#socket.destroy()
  }

  #read(chunk: Buffer): void {
    this.#received = this.#received.length === 0 ? chunk : Buffer.concat([this.#received, chunk])
    const end = this.#received.indexOf(HEAD_END)
    if (end === -1) return
    const head = this.#received.toString('latin1', 0, end)
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
    if (this.#received.length < end + 4 + length) return
    const body = this.#received.toString('utf8', end + 4, end + 4 + length)
    this.#received = this.#received.subarray(end + 4 + length)
    const waiting = this.#waiting
    this.#waiting = null
    waiting?.resolve({ status: Number(head.slice(9, 12)), body })
  }

  #fail(err: Error): void {
    const waiting = this.#waiting
    this.#waiting = null
    waiting?.reject(err)
  }
}
