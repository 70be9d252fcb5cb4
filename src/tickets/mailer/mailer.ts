/**
 * Mail through SMTP (`SMTP_URL`, nodemailer), sent as `MAIL_FROM`: invite links (docs/tickets-api.md,
 * 4.8), the built-in provider's confirmation and reset links, and notification mails
 * (docs/notifications.md, "Mail"). Sending happens after a transaction has committed, never
 * inside one.
 */
import type { Transporter } from 'nodemailer'
import type { Logger } from '../../base/log.ts'

export interface Mail {
  to: string
  subject: string
  text: string
}

/** A mail with an HTML part and headers of its own (`Message-ID` among them). */
export interface RichMail extends Mail {
  html: string
  /** Header name to value; `Message-ID` is taken as the mail's own. */
  headers: Record<string, string>
}

/**
 * What an attempt came to: sent, refused for good (a 5xx answer to `RCPT TO`: the address does
 * not take mail), or failed for now (no connection, a timeout, a 4xx, any other answer).
 */
export type MailOutcome = { ok: true } | { ok: false; refused: boolean; error: string }

export interface Mailer {
  /** Sends a mail; false when the server refused it or could not be reached (logged). */
  send(mail: Mail): Promise<boolean>
  /** Sends a notification mail once; the outcome says whether to try again. Nothing is logged. */
  deliver(mail: RichMail): Promise<MailOutcome>
  close(): void
}

/** How long one attempt may take, connection to the server's last answer. */
export const SEND_TIMEOUT_MS = 30_000

/** A mailer for `smtpUrl` (`smtp://host:port`, `smtps://user:pass@host`), sending as `from`. */
export function createMailer(smtpUrl: string, from: string, logger: Logger): Mailer {
  // nodemailer is loaded with the first mail (about 0.1 s of CPU), not at every start.
  let transport: Promise<Transporter> | undefined
  const transportOf = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: SEND_TIMEOUT_MS,
      }),
    ))
  return {
    async send(mail) {
      try {
        await (
          await transportOf()
        ).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })
        return true
      } catch (err) {
        // The reason only: the mail itself carries a link.
        logger.line(
          `tickets mail to ${mail.to} failed: ${err instanceof Error ? err.message : String(err)}`,
        )
        return false
      }
    },
    async deliver(mail) {
      const { 'Message-ID': messageId, ...headers } = mail.headers
      try {
        await (
          await transportOf()
        ).sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          ...(messageId === undefined ? {} : { messageId }),
          headers,
        })
        return { ok: true }
      } catch (err) {
        const e = err as { message?: string; command?: string; responseCode?: number }
        const refused =
          e.command === 'RCPT TO' &&
          typeof e.responseCode === 'number' &&
          e.responseCode >= 500 &&
          e.responseCode < 600
        return { ok: false, refused, error: String(e.message ?? err).slice(0, 500) }
      }
    },
    close() {
      void transport?.then(
        (t) => t.close(),
        () => {},
      )
    },
  }
}
