/**
 * Where answers are made: the store's tickets get their page address here, in API answers and
 * live events alike.
 */
import type { Project } from '../store/projects.ts'
import type { Ticket } from '../store/ticket-row.ts'

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
