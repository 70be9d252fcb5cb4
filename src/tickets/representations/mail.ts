/**
 * A notification mail (docs/notifications.md, "What a mail holds"): what one person is told of
 * one ticket in one batch, as a subject, a plain-text part, an HTML part (every value escaped by
 * the `html` template) and the headers that thread a ticket's mails and offer the one-click
 * unsubscribe of RFC 8058.
 */
import { html, htmlPage, joinHtml, type Html } from '../../http/html.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventSentence, oneLine } from '../text/history-words.ts'
import { isDueReminder, reminderSentence } from '../rules/notification-reasons.ts'

import type { MailKind } from '../rules/unsubscribe.ts'

/** The ticket a mail is about. */
export interface MailTicket {
  id: string
  slug: string
  number: number
  subject: string
  /** The ticket's text, told with its creation. */
  summary: string
}

/** One thing the person is told, oldest first in a mail. */
export interface MailItem {
  at: number
  actor: string
  /** Why the person is told. */
  reason: string
  /** 'created', or the history event's kind. */
  kind: string
  /** The history event; null for the ticket's creation. */
  event: TicketEvent | null
}

export interface MailParts {
  subject: string
  text: string
  html: string
  headers: Record<string, string>
}

/** The words after the actor's name, and the text that goes with them. */
function told(item: MailItem, ticket: MailTicket): { words: string; text: string } {
  if (item.event === null)
    return item.kind === 'created'
      ? { words: 'opened the ticket', text: ticket.summary }
      : { words: oneLine(item.kind), text: '' }
  const text = typeof item.event.text === 'string' ? item.event.text : ''
  return { words: eventSentence(item.event), text }
}

const WHY: Record<MailKind, string> = {
  assigned: 'a ticket was assigned to you or taken from you',
  mentioned: 'you were mentioned',
  watching: 'you watch this ticket',
  due: 'a ticket assigned to you is due',
}

/** What the one-click unsubscribe turns off, in words: "mail about tickets you watch". */
export const KIND_WORDS: Record<MailKind, string> = {
  assigned: 'mail about tickets assigned to you',
  mentioned: 'mail about mentions of you',
  watching: 'mail about tickets you watch',
  due: 'mail about due dates of tickets assigned to you',
}

/**
 * The kind a mail's unsubscribe link turns off: of the reasons in the batch, the one most likely
 * to be noise (watching, then due-date reminders, then assigned, then mentioned), so that turning
 * it off never silences a stronger reason the person did not ask to lose.
 */
export function mailKindOf(items: readonly MailItem[]): MailKind {
  const reasons = new Set(items.map((i) => i.reason))
  if (reasons.has('watching')) return 'watching'
  if (reasons.has('due')) return 'due'
  if (reasons.has('mentioned') && !reasons.has('assigned')) return 'mentioned'
  return 'assigned'
}

/** `2026-12-06 23:40 UTC` */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/**
 * The mail of `items` (at least one) about `ticket`. `messageId` is this mail's own (the same on
 * every attempt); `threadId` is the ticket's, which every mail of the ticket names in
 * `In-Reply-To` and `References` so that mail clients keep them in one thread.
 */
export function composeMail(input: {
  ticket: MailTicket
  items: readonly MailItem[]
  ticketUrl: string
  settingsUrl: string
  unsubscribeUrl: string
  kind: MailKind
  messageId: string
  threadId: string
  listId: string
}): MailParts {
  const { ticket, items, kind } = input
  const ref = `${ticket.slug}#${ticket.number}`
  const subject = `[${ref}] ${oneLine(ticket.subject)}`
  const reasons = [...new Set(items.map((i) => i.reason))].filter((r): r is MailKind => r in WHY)
  const because = `You get this mail because ${reasons.map((r) => WHY[r]).join(', and ') || 'you asked for it'}.`
  const off = `Turn off ${KIND_WORDS[kind]}: ${input.unsubscribeUrl}`

  const textItems = items.map((item) => {
    if (isDueReminder(item.kind)) return reminderSentence(ref, item.kind, item.at)
    const { words, text } = told(item, ticket)
    const head = `${oneLine(item.actor)} ${words} (${when(item.at)})`
    return text.trim() === '' ? head : `${head}:\n\n${text.trim()}`
  })
  const text = `${ref} ${oneLine(ticket.subject)}
${input.ticketUrl}

${textItems.join('\n\n---\n\n')}

--
${because}
${off}
Choose what you are told: ${input.settingsUrl}
`

  const htmlItems: Html[] = items.map((item) => {
    if (isDueReminder(item.kind))
      return html`<div style="margin:0 0 16px"><p style="margin:0 0 4px"><strong>${reminderSentence(ref, item.kind, item.at)}</strong></p></div>`
    const { words, text } = told(item, ticket)
    return html`<div style="margin:0 0 16px"><p style="margin:0 0 4px"><strong>${oneLine(item.actor)}</strong> ${words} <span style="color:#6b6b6b">${when(item.at)}</span></p>${
      text.trim() === ''
        ? ''
        : html`<div style="white-space:pre-wrap;border-left:3px solid #d0d0d0;padding-left:10px">${text.trim()}</div>`
    }</div>`
  })
  const body = html`<div style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.45;color:#1a1a1a;max-width:640px">
<p style="margin:0 0 16px"><a href="${input.ticketUrl}">${ref}</a> ${oneLine(ticket.subject)}</p>
${joinHtml(htmlItems, '\n')}
<p style="margin:0 0 16px"><a href="${input.ticketUrl}">Open ${ref}</a></p>
<hr style="border:0;border-top:1px solid #d0d0d0">
<p style="color:#6b6b6b;font-size:13px">${because} <a href="${input.unsubscribeUrl}">Turn off ${KIND_WORDS[kind]}</a> · <a href="${input.settingsUrl}">Choose what you are told</a></p>
</div>`
  const headers: Record<string, string> = {
    'Message-ID': input.messageId,
    'In-Reply-To': input.threadId,
    References: input.threadId,
    'List-Id': input.listId,
    'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    // RFC 3834: no out-of-office replies to a machine's mail.
    'Auto-Submitted': 'auto-generated',
    'X-Auto-Response-Suppress': 'All',
  }
  return {
    subject,
    text,
    html: htmlPage({ title: subject }, body).toString(),
    headers,
  }
}
