/**
 * Markdown answers (docs/tickets-api.md, 4.1 and the end of 4.7): with `Accept: text/markdown` the
 * two ticket lists and the single ticket answer a compact document for a terminal or a language
 * model. A list is one line per ticket (reference, state, subject, assignee, labels, milestone,
 * due day, link); a ticket is a
 * heading, a short field list, the summary and its history.
 */
import { NOSNIFF, type BodyStream, type Headers, type Response } from '../../http/response.ts'
import type { Request } from '../../http/request.ts'
import type { TicketAnswer as Ticket } from './json.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventSentence, oneLine } from '../text/history-words.ts'
import { isoTime } from '../app/relative-time.ts'
import { formatSize } from '../rules/files.ts'

/** Every answer of a route that negotiates carries this, errors included. */
export const VARY: Headers = { vary: 'Accept' }

const MARKDOWN_TYPE = 'text/markdown; charset=utf-8'

/**
 * True when the client prefers Markdown: `text/markdown` has a higher quality than JSON
 * (`application/json`, `application/*` or `*\/*`), or the same and comes first.
 */
export function wantsMarkdown(req: Request): boolean {
  const accept = req.headers.accept
  if (!accept) return false
  let markdown = { q: 0, at: Infinity }
  let json = { q: 0, at: Infinity }
  accept.split(',').forEach((part, at) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!(q >= 0 && q <= 1)) return
    if (type === 'text/markdown' && q > markdown.q) markdown = { q, at }
    if ((type === 'application/json' || type === 'application/*' || type === '*/*') && q > json.q)
      json = { q, at }
  })
  return markdown.q > 0 && (markdown.q > json.q || (markdown.q === json.q && markdown.at < json.at))
}

/** A Markdown answer, whole or written as it is made. */
export function markdown(status: number, body: string | BodyStream): Response {
  return {
    status,
    headers: { 'content-type': MARKDOWN_TYPE, 'x-content-type-options': NOSNIFF, ...VARY },
    body,
  }
}

/** A list of tickets: a heading naming what was listed, then one line per ticket. */
export function listMarkdown(
  title: string,
  states: readonly string[],
  tickets: readonly Ticket[],
): string {
  const lines = [listHeading(title, states, tickets.length), '']
  if (tickets.length === 0) lines.push('No tickets.')
  for (const t of tickets) lines.push(listLine(t))
  return lines.join('\n') + '\n'
}

/**
 * {@link listMarkdown}'s text written batch by batch as `batches` yields, with the heading's
 * `count` known beforehand (one count statement), so a list of 100,000 tickets is never held
 * whole. The same bytes as {@link listMarkdown} when `count` is how many tickets the batches
 * hold.
 */
export async function* listMarkdownStream(
  title: string,
  states: readonly string[],
  count: number,
  batches: AsyncIterable<readonly Ticket[]>,
): AsyncGenerator<string> {
  yield `${listHeading(title, states, count)}\n\n`
  let none = true
  for await (const batch of batches) {
    let piece = ''
    for (const t of batch) piece += `${listLine(t)}\n`
    if (piece === '') continue
    none = false
    yield piece
  }
  if (none) yield 'No tickets.\n'
}

function listHeading(title: string, states: readonly string[], count: number): string {
  return `# ${oneLine(title)}: ${count === 1 ? '1 ticket' : `${count} tickets`} (${states.join(', ')})`
}

/**
 * A list's line: `- web#3 [open] Login fails (@alice; labels: bug, needs review; milestone:
 * v1.0; due: 2026-12-24) <url>`; the labels, milestone and due day only when the ticket has them.
 */
function listLine(t: Ticket): string {
  const parts = [t.assignee ? `@${oneLine(t.assignee.name)}` : 'unassigned', ...organiseParts(t)]
  return `- ${t.ref} [${t.state}] ${oneLine(t.subject)} (${parts.join('; ')}) <${t.url}>`
}

/** `labels: bug, ui`, `milestone: v1.0`, `due: 2026-12-24`, each when the ticket has it. */
function organiseParts(t: Ticket): string[] {
  const parts: string[] = []
  if (t.labels.length > 0) parts.push(`labels: ${t.labels.map(oneLine).join(', ')}`)
  if (t.milestone !== null) parts.push(`milestone: ${oneLine(t.milestone)}`)
  if (t.due !== null) parts.push(`due: ${t.due}`)
  return parts
}

/** A ticket: heading, fields, summary, history. */
export function ticketMarkdown(
  t: Ticket,
  events: readonly TicketEvent[],
  files: readonly { name: string; size: number; url: string }[] = [],
): string {
  const out = [`# ${t.ref}: ${oneLine(t.subject)}`, '']
  out.push(`- state: ${t.state}`)
  out.push(`- assignee: ${t.assignee ? oneLine(t.assignee.name) : 'nobody'}`)
  if (t.author) out.push(`- author: ${oneLine(t.author.name)}`)
  if (t.parent) out.push(`- parent: ${t.parent.ref}`)
  if (t.blockedBy.length > 0) out.push(`- blocked by: ${t.blockedBy.map((b) => b.ref).join(', ')}`)
  for (const part of organiseParts(t)) out.push(`- ${part}`)
  if (t.oldNumber !== null) out.push(`- old number: ${t.oldNumber}`)
  if (t.source) out.push(`- source: ${oneLine(t.source)}`)
  out.push(`- created: ${time(t.created)}, updated: ${time(t.updated)}`)
  out.push(`- link: <${t.url}>`)
  if (files.length > 0)
    out.push(
      `- files: ${files.map((f) => `${oneLine(f.name)} (${formatSize(f.size)}) <${f.url}>`).join(', ')}`,
    )
  out.push('')
  if (t.summary.trim() !== '') out.push(t.summary.trim(), '')
  out.push('## History', '')
  if (events.length === 0) out.push('No events yet.')
  for (const e of events) out.push(...eventLines(e))
  return out.join('\n') + '\n'
}

function eventLines(e: TicketEvent): string[] {
  // A connected app acts as the person who confirmed it; its label says which app it was.
  const head = `- ${time(e.created)} ${oneLine(e.by)}${e.app === null ? '' : ` (via ${oneLine(e.app)})`} ${eventSentence(e)}`
  const text =
    typeof e.text === 'string' && e.text !== '' && (e.kind === 'comment' || e.kind === 'state')
      ? e.text
      : ''
  if (e.kind === 'comment') return [`${head}:`, ...(text ? quote(text) : [])]
  return text ? [`${head}:`, ...quote(text)] : [head]
}

/** Quoted lines under a list item, indented so they stay inside it. */
function quote(text: string): string[] {
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => `  > ${line}`.trimEnd())
}

/** `2026-11-22 01:29 UTC`: minutes are enough for a reader. */
function time(ms: number): string {
  return isoTime(ms).slice(0, 16).replace('T', ' ') + ' UTC'
}
