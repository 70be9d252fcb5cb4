/**
 * The reads every web page makes besides its own, in one statement: the project switcher, the
 * signed-in person's inbox count and, on a project's pages, the project a name gives with the
 * person's role, its members and its tickets per state (the sums of the `ticket_counts` rows
 * triggers add, sql/0010_ticket_counts_and_blockers.sql and sql/0011_ticket_counts_deltas.sql). A page that made these as separate statements waited for
 * six round trips before its own (docs/performance.md, "The web app's pages").
 */
import type { Query } from '../../db.ts'
import { isLookupText } from '../ids.ts'
import type { Role } from '../roles.ts'
import { STATES, type State } from '../states.ts'
import type { Member, Project } from './projects.ts'

/** What the frame and a project's pages read once per request. */
export interface PageContext {
  /** Every project's slug and title, by title. */
  switcher: { slug: string; title: string }[]
  /** The person's tickets in open, doing or review; null when nobody is signed in. */
  inboxCount: number | null
  /** The project the name given names, with what its pages show of it; null when none was given or found. */
  project: {
    project: Project
    role: Role | null
    /** Admins first, then by name. */
    members: Member[]
    /** Tickets per state, every state present. */
    counts: Record<State, number>
  } | null
}

/** JSON text on the embedded database, parsed JSON on a server. */
type Json<T> = string | T

interface ContextRow {
  switcher: Json<{ slug: string; title: string }[]>
  inbox: number | null
  id: string | null
  slug: string | null
  title: string | null
  description: string | null
  created: number | null
  role: Role | null
  members: Json<{ id: string; name: string; role: Role }[]> | null
  counts: Json<{ state: State; n: number }[]> | null
}

const parsed = <T>(value: Json<T>): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

/** The page context for `viewerId` (null: signed out) and a project slug, old slug or id (null: none). */
async function pageContext(q: Query, viewerId: string | null, projectRef: string | null): Promise<PageContext> {
  const ref = projectRef !== null && isLookupText(projectRef) ? projectRef : null
  const [row] = await q<ContextRow[]>`
    select
      (select coalesce(json_agg(json_build_object('slug', s.slug, 'title', s.title) order by lower(s.title), s.slug), '[]')
        from projects s) as switcher,
      (select count(*)::int from tickets i
        where i.assignee_id = ${viewerId} and i.state in ('open', 'doing', 'review')) as inbox,
      p.id, p.slug, p.title, p.description, p.created,
      (select m.role from members m where m.project_id = p.id and m.user_id = ${viewerId}) as role,
      (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'role', m.role)
          order by array_position(array['admin', 'edit', 'use'], m.role), u.name, u.id), '[]')
        from members m join users u on u.id = m.user_id where m.project_id = p.id) as members,
      (select coalesce(json_agg(json_build_object('state', c.state, 'n', c.n)), '[]')
        from (select state, sum(count)::int as n from ticket_counts where project_id = p.id group by state) c) as counts
    from (select 1) as one
    left join (project_names n join projects p on p.id = n.project_id) on n.name = ${ref}`
  const r = row!
  let project: PageContext['project'] = null
  if (r.id !== null) {
    const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<State, number>
    for (const c of parsed(r.counts ?? [])) counts[c.state] = c.n
    project = {
      project: { id: r.id, slug: r.slug!, title: r.title!, description: r.description!, created: r.created! },
      role: viewerId === null ? null : (r.role ?? null),
      members: parsed(r.members ?? []).map((m) => ({ user: { id: m.id, name: m.name }, role: m.role })),
      counts,
    }
  }
  return { switcher: parsed(r.switcher), inboxCount: viewerId === null ? null : r.inbox, project }
}

/** The pages' shared reads on `q`. */
export function pageReadTable(q: Query) {
  return {
    context: (viewerId: string | null, projectRef: string | null) => pageContext(q, viewerId, projectRef),
  }
}
