/**
 * Project slugs (docs/tickets-api.md, "POST /api/projects"): lower-case `a-z0-9` and single `-`, 1
 * to 40 characters, generated from the title with a `-2`, `-3`... suffix when taken. Every name a
 * project ever had stays its own in `project_names`, so old slugs keep resolving.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import { SLUG_FORMAT, slugReserved, slugTaken } from './messages.ts'

export const SLUG_MAX = 40

/** Slugs no project may take: they are, or may become, the service's own paths. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'api',
  'login',
  'logout',
  'connect',
  'tickets',
  'projects',
  'settings',
  'inbox',
  'notifications',
  'unsubscribe',
  'static',
  'assets',
  'events',
  'live',
  'healthz',
  'new',
  'admin',
  'favicon.ico',
  'robots.txt',
])

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/

export function isSlug(text: string): boolean {
  return text.length <= SLUG_MAX && SLUG.test(text)
}

/** The slug a title suggests: accents dropped, every other run of characters a single `-`. */
export function slugFromTitle(title: string): string {
  const plain = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
  const slug = trimDashes(plain.replace(/[^a-z0-9]+/g, '-').slice(0, SLUG_MAX))
  return slug === '' ? 'project' : slug
}

function trimDashes(text: string): string {
  return text.replace(/^-+|-+$/g, '')
}

/** `base` with suffix `-n`, shortened so the whole stays within 40 characters. */
export function withSuffix(base: string, n: number): string {
  const suffix = `-${n}`
  return trimDashes(base.slice(0, SLUG_MAX - suffix.length)) + suffix
}

/**
 * Takes a slug through `claim` (which records a name for the project, false when another project
 * has it: the store's `projects.claimName` inside the write's transaction): `wanted` when given
 * (refused when malformed, reserved or another project's, old slugs included), else one made
 * from `title`. A slug the project had before is its own to take again.
 */
export async function claimSlug(
  claim: (name: string) => Promise<boolean>,
  wanted: string | null,
  title: string,
): Promise<{ ok: true; slug: string } | Refusal> {
  if (wanted !== null) {
    if (!isSlug(wanted)) return refuse(400, SLUG_FORMAT, 'slug')
    if (RESERVED_SLUGS.has(wanted)) return refuse(400, slugReserved(wanted), 'slug')
    return (await claim(wanted))
      ? { ok: true, slug: wanted }
      : refuse(400, slugTaken(wanted), 'slug')
  }
  const base = slugFromTitle(title)
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : withSuffix(base, n)
    if (!RESERVED_SLUGS.has(slug) && (await claim(slug))) return { ok: true, slug }
  }
}
