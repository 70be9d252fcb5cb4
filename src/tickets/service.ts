/** The ticket tracking service (tickets-interface.md). */
import type { Service, ServiceDeps } from '../service.ts'

/** Builds the ticket service. */
export function createTicketsService(_deps: ServiceDeps): Service {
  return { routes: [] }
}
