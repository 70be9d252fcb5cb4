/**
 * The projects aggregate: the `projects`, `project_names` and `members` tables, their row types
 * and the {@link Project} and {@link Member} the API shows. A project answers to its id, its slug
 * and every old slug alike (`project_names`).
 *
 * Answers carry no URL: the API adds the page address where it answers (`representations/json.ts`).
 */
import type { Query } from '../../db/client.ts'
import { isLookupText } from '../rules/ids.ts'
import type { Role } from '../rules/roles.ts'
import type { User } from './users.ts'

/** A project as the API shows it (without its page address). */
export interface Project {
  id: string
  slug: string
  title: string
  description: string
  created: number
}

export interface Member {
  user: User
  role: Role
}

interface ProjectRow {
  id: string
  slug: string
  title: string
  description: string
  created: number
}

function projectOf(r: ProjectRow): Project {
  return { id: r.id, slug: r.slug, title: r.title, description: r.description, created: r.created }
}

/** The project a slug, old slug or id names, or null. */
export async function findProject(q: Query, ref: string): Promise<Project | null> {
  if (!isLookupText(ref)) return null
  const [row] = await q<ProjectRow[]>`
    select p.id, p.slug, p.title, p.description, p.created
    from project_names n join projects p on p.id = n.project_id
    where n.name = ${ref}`
  return row ? projectOf(row) : null
}

/** The project with `id`, or null. */
async function projectById(q: Query, id: string): Promise<Project | null> {
  const [row] = await q<
    ProjectRow[]
  >`select id, slug, title, description, created from projects where id = ${id}`
  return row ? projectOf(row) : null
}

/** Every project, by slug. */
async function allProjects(q: Query): Promise<Project[]> {
  const rows = await q<
    ProjectRow[]
  >`select id, slug, title, description, created from projects order by slug`
  return rows.map(projectOf)
}

/** Every project's slug and title, by title (the home page's list). */
function projectTitles(q: Query): Promise<{ slug: string; title: string }[]> {
  return q<
    { slug: string; title: string }[]
  >`select slug, title from projects order by lower(title), slug`
}

/** Records `name` for the project; false when it belongs to another project. */
export async function claimName(tx: Query, projectId: string, name: string): Promise<boolean> {
  const [row] = await tx<{ project_id: string }[]>`
    insert into project_names (name, project_id) values (${name}, ${projectId})
    on conflict (name) do update set project_id = project_names.project_id
    returning project_id`
  return row!.project_id === projectId
}

/** Records `id` as a fresh project's own name; false when something already answers to it. */
export async function claimFreshId(tx: Query, id: string): Promise<boolean> {
  const rows =
    await tx`insert into project_names (name, project_id) values (${id}, ${id}) on conflict (name) do nothing returning name`
  return rows.length === 1
}

/** Inserts a project (its id and slug already claimed) with `adminId` as its first admin. */
async function insertProject(tx: Query, p: Project, adminId: string): Promise<Project> {
  const [row] = await tx<ProjectRow[]>`
    insert into projects (id, slug, title, description, created)
    values (${p.id}, ${p.slug}, ${p.title}, ${p.description}, ${p.created})
    returning id, slug, title, description, created`
  await tx`insert into members (project_id, user_id, role) values (${p.id}, ${adminId}, 'admin')`
  return projectOf(row!)
}

/** Changes the given fields of a project; answers it as it now is. */
export async function updateProject(
  tx: Query,
  id: string,
  change: { title?: string; slug?: string; description?: string },
): Promise<Project> {
  const [row] = await tx<ProjectRow[]>`
    update projects set
      title = coalesce(${change.title ?? null}, title),
      slug = coalesce(${change.slug ?? null}, slug),
      description = coalesce(${change.description ?? null}, description)
    where id = ${id}
    returning id, slug, title, description, created`
  return projectOf(row!)
}

/** The user's role in the project, or null when not a member. */
export async function roleOf(q: Query, projectId: string, userId: string): Promise<Role | null> {
  const [row] = await q<
    { role: Role }[]
  >`select role from members where project_id = ${projectId} and user_id = ${userId}`
  return row ? row.role : null
}

/** The members of a project, admins first, then by name. */
async function membersOf(q: Query, projectId: string): Promise<Member[]> {
  const rows = await q<{ id: string; name: string; role: Role }[]>`
    select u.id, u.name, m.role from members m join users u on u.id = m.user_id
    where m.project_id = ${projectId}
    order by array_position(array['admin', 'edit', 'use'], m.role), u.name, u.id`
  return rows.map((r) => ({ user: { id: r.id, name: r.name }, role: r.role }))
}

/** Makes `userId` a member with `role`, or changes their role. */
export async function setMember(
  tx: Query,
  projectId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await tx`
    insert into members (project_id, user_id, role) values (${projectId}, ${userId}, ${role})
    on conflict (project_id, user_id) do update set role = excluded.role`
}

export async function removeMember(tx: Query, projectId: string, userId: string): Promise<void> {
  await tx`delete from members where project_id = ${projectId} and user_id = ${userId}`
}

export async function adminCount(tx: Query, projectId: string): Promise<number> {
  const [row] = await tx<
    { n: number }[]
  >`select count(*)::int as n from members where project_id = ${projectId} and role = 'admin'`
  return row!.n
}

/** A project on the home page: with its tickets in open, doing or review, and a person's role. */
export interface ProjectSummary {
  slug: string
  title: string
  description: string
  open: number
  /** The person's role, or null. */
  role: Role | null
}

/**
 * Every project, by title, with its open count and `userId`'s role (none for null). The counts
 * are the `ticket_counts` rows a trigger keeps (sql/0010_ticket_counts_and_blockers.sql, as changes since sql/0011_ticket_counts_deltas.sql), summed
 * since a project and state may have several, rather than a count of every project's tickets.
 */
async function projectSummaries(q: Query, userId: string | null): Promise<ProjectSummary[]> {
  const rows = await q<
    { slug: string; title: string; description: string; open: number | null; role: Role | null }[]
  >`
    select p.slug, p.title, p.description, c.open,
      (select m.role from members m where m.project_id = p.id and m.user_id = ${userId ?? ''}) as role
    from projects p
    left join (
      select project_id, sum(count)::int as open from ticket_counts
      where state in ('open', 'doing', 'review') group by project_id
    ) c on c.project_id = p.id
    order by lower(p.title), p.slug`
  return rows.map((r) => ({
    slug: r.slug,
    title: r.title,
    description: r.description,
    open: r.open ?? 0,
    role: r.role ?? null,
  }))
}

/** The projects `userId` is a member of, by title, with the role. */
export function membershipsOf(
  q: Query,
  userId: string,
): Promise<{ slug: string; title: string; role: Role }[]> {
  return q<{ slug: string; title: string; role: Role }[]>`
    select p.slug, p.title, m.role from members m join projects p on p.id = m.project_id
    where m.user_id = ${userId} order by lower(p.title), p.slug`
}

/**
 * The caller's role, read with the project row locked in the same statement: member changes of
 * one project then run one after another, so two admins demoting each other cannot leave the
 * project without one, and a create's source check and next number are one step. The lock is
 * `for no key update`, the one `update projects set next_number` takes: the foreign-key checks
 * of other writes in the project (their events, their counts) do not wait for it.
 */
export async function lockedRole(
  q: Query,
  projectId: string,
  userId: string,
): Promise<Role | null> {
  const [row] = await q<{ role: Role | null }[]>`
    select m.role from projects p left join members m on m.project_id = p.id and m.user_id = ${userId}
    where p.id = ${projectId}
    for no key update of p`
  return row?.role ?? null
}

/** Projects, their names and members on `q` (the locks and writes inside a transaction). */
export function projectTable(q: Query) {
  return {
    find: (ref: string) => findProject(q, ref),
    byId: (id: string) => projectById(q, id),
    all: () => allProjects(q),
    titles: () => projectTitles(q),
    summaries: (userId: string | null) => projectSummaries(q, userId),
    membershipsOf: (userId: string) => membershipsOf(q, userId),
    claimName: (projectId: string, name: string) => claimName(q, projectId, name),
    claimFreshId: (id: string) => claimFreshId(q, id),
    insert: (p: Project, adminId: string) => insertProject(q, p, adminId),
    update: (id: string, change: { title?: string; slug?: string; description?: string }) =>
      updateProject(q, id, change),
    roleOf: (projectId: string, userId: string) => roleOf(q, projectId, userId),
    lockedRole: (projectId: string, userId: string) => lockedRole(q, projectId, userId),
    members: (projectId: string) => membersOf(q, projectId),
    setMember: (projectId: string, userId: string, role: Role) =>
      setMember(q, projectId, userId, role),
    removeMember: (projectId: string, userId: string) => removeMember(q, projectId, userId),
    adminCount: (projectId: string) => adminCount(q, projectId),
  }
}
