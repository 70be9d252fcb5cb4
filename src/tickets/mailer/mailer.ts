/**
 * Invite mail (docs/tickets-api.md, 4.8, "POST /api/projects/<slug>/invites"): with `SMTP_URL` set,
 * an invite's link is mailed through nodemailer. Sending happens after the invite's transaction has
 * committed, never inside one.
 */
import nodemailer from 'nodemailer'
import type { Logger } from '../../base/log.ts'

export interface Mail {
  to: string
  subject: string
  text: string
}

export interface Mailer {
  /** Sends a mail; false when the server refused it or could not be reached (logged). */
  send(mail: Mail): Promise<boolean>
  close(): void
}

/** A mailer for `smtpUrl` (`smtp://host:port`, `smtps://user:pass@host`), sending as `from`. */
export function createMailer(smtpUrl: string, from: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport(smtpUrl)
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })
        return true
      } catch (err) {
        // The reason only: the mail itself carries an invite link.
        logger.line(
          `tickets mail to ${mail.to} failed: ${err instanceof Error ? err.message : String(err)}`,
        )
        return false
      }
    },
    close() {
      transport.close()
    },
  }
}
