/** The notes sync service (notes-interface.md). */
import type { Service, ServiceDeps } from '../service.ts'

/** Builds the notes service. */
export function createNotesService(_deps: ServiceDeps): Service {
  return { routes: [] }
}
