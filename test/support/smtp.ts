/**
 * A real SMTP server for tests (the `smtp-server` package): it keeps every mail it takes, read
 * into headers and parts, refuses at `RCPT TO` the addresses it is told to, and can be stopped
 * and started again on the same port (a mail server down for a while).
 */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  /** Header names in lower case; folded lines unfolded. */
  headers: Record<string, string>
  /** The plain-text part, decoded. */
  text: string
  /** The HTML part, decoded, or '' when there is none. */
  html: string
  raw: string
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>` */
  url: string
  mails: ReceivedMail[]
  /** Addresses answered `550` at `RCPT TO`. */
  refuse: Set<string>
  /** Resolves once `n` mails have arrived in all (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>
  /** Stops listening: connections are refused until `start`. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
}

/** Starts a server on a free port of 127.0.0.1. */
export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = []
  const refuse = new Set<string>()
  const waiters: (() => void)[] = []
  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, done) {
        if (refuse.has(address.address.toLowerCase())) {
          const err = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 })
          done(err)
        } else done()
      },
      onData(stream, session, done) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8')
          mails.push({ ...parseMail(raw), to: session.envelope.rcptTo.map((r) => r.address), raw })
          for (const wake of waiters.splice(0)) wake()
          done()
        })
      },
    })
  let server = make()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  let listening = true
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse,
    async waitFor(n, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs
      while (mails.length < n) {
        const left = until - Date.now()
        if (left <= 0) throw new Error(`${mails.length} mails arrived, not ${n}`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      return mails.slice(0, n)
    },
    async stop() {
      if (!listening) return
      listening = false
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    async start() {
      if (listening) return
      server = make()
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
      listening = true
    },
  }
}

/** Headers and the text and HTML parts of a mail as nodemailer writes it. */
export function parseMail(raw: string): Omit<ReceivedMail, 'to' | 'raw'> {
  const { headers, body } = split(raw)
  const type = headers['content-type'] ?? 'text/plain'
  const parts = type.startsWith('multipart/') ? multipart(type, body) : [{ headers, body }]
  let text = ''
  let html = ''
  for (const part of parts) {
    const partType = part.headers['content-type'] ?? 'text/plain'
    const decoded = decode(part.body, part.headers['content-transfer-encoding'] ?? '7bit')
    if (partType.startsWith('text/plain')) text = decoded
    else if (partType.startsWith('text/html')) html = decoded
  }
  return { headers, text, html }
}

function split(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n')
  const head = at === -1 ? raw : raw.slice(0, at)
  const body = at === -1 ? '' : raw.slice(at + 4)
  const headers: Record<string, string> = Object.create(null)
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { headers, body }
}

function multipart(type: string, body: string) {
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1]
  if (!boundary) return []
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((part) => !part.startsWith('--'))
    .map((part) => split(part.replace(/^\r\n/, '').replace(/\r\n$/, '')))
}

function decode(body: string, encoding: string): string {
  const kind = encoding.toLowerCase()
  if (kind === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (kind === 'quoted-printable') {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    return Buffer.from(bytes, 'latin1').toString('utf8')
  }
  return body
}

/** Decodes an RFC 2047 encoded-word header (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
export function headerText(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) =>
                String.fromCharCode(parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    )
}
