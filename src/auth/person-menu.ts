/**
 * The person's menu on every page of both apps (docs/core.md, "Finding your way"): the links it
 * holds above **Sign out**, the same in both. **Account** (passkeys, password) and **Admin** (the
 * owner's only) are the built-in provider's pages; the other app is the other service. A link
 * whose place does not exist (an outside provider, a service not started) is left out.
 */
import type { Places } from '../service.ts'

export interface MenuLink {
  label: string
  href: string
}

export function menuLinks(
  places: Places | undefined,
  owner: boolean,
  here: 'notes' | 'tickets',
): MenuLink[] {
  const links: MenuLink[] = []
  if (!places) return links
  if (places.provider !== null) {
    links.push({ label: 'Account', href: `${places.provider}/account` })
    if (owner) links.push({ label: 'Admin', href: `${places.provider}/admin` })
  }
  const other =
    here === 'notes'
      ? { label: 'Tickets', href: places.tickets }
      : { label: 'Notes', href: places.notes }
  if (other.href !== null) links.push({ label: other.label, href: `${other.href}/` })
  return links
}
