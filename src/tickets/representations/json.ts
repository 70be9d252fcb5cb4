/**
 * The JSON representations of the ticket service, which the API, the pages and the live events
 * share: the store's tickets and projects with their page address, a ticket's answer with its
 * history, and the `ETag` of that answer.
 */
import { etagOf } from '../../http/conditional.ts'
import type { Project } from '../store/projects.ts'
import type { Ticket } from '../store/ticket-row.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'

/** A ticket as answers show it: the store's ticket and its page. */
export type TicketAnswer = Ticket & {
  /** The ticket's page. */
  url: string
}

/** `ticket` with its page address under `publicUrl`. */
export function ticketAnswer(publicUrl: string, ticket: Ticket): TicketAnswer {
  return { ...ticket, url: `${publicUrl}/${ticket.slug}/${ticket.number}` }
}

/** Every ticket with its page address. */
export function ticketAnswers(publicUrl: string, tickets: readonly Ticket[]): TicketAnswer[] {
  return tickets.map((t) => ticketAnswer(publicUrl, t))
}

/** A project as answers show it: the store's project and its page. */
export type ProjectAnswer = Project & {
  /** The project's page. */
  url: string
}

/** `project` with its page address under `publicUrl`. */
export function projectAnswer(publicUrl: string, project: Project): ProjectAnswer {
  return { ...project, url: `${publicUrl}/${project.slug}` }
}

/** The JSON answer of a single ticket (docs/tickets-api.md, 4.2): the ticket and its history. */
export function ticketReadBody(
  publicUrl: string,
  ticket: Ticket,
  events: readonly TicketEvent[],
): { ticket: TicketAnswer; events: readonly TicketEvent[] } {
  return { ticket: ticketAnswer(publicUrl, ticket), events }
}

/**
 * The ticket's `ETag`: the tag of its JSON answer, the one the dispatcher gives that answer
 * (src/http/conditional.ts), so a client sends back in `If-Match` what it read. The page's edit form
 * carries the same tag.
 */
export function ticketEtag(
  publicUrl: string,
  ticket: Ticket,
  events: readonly TicketEvent[],
): string {
  return etagOf(JSON.stringify(ticketReadBody(publicUrl, ticket, events)))
}
