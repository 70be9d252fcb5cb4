/**
 * What a project invite is, read by the provider when an invite's link brings a person to sign
 * in (the link returns to the tracker's `/login/callback?invite=<id>`, docs/tickets-api.md 4.8):
 * the project, who invited and with what role, so the page can say so and offer sign-up through
 * the invite. The provider shares the tracker's database; joining stays the tracker's work.
 */
import type { Sql } from '../db/client.ts'
import { hashSecret } from '../base/random.ts'

export interface InviteContext {
  project: string
  inviter: string
  role: string
}

/**
 * The live invite `returnTo` names, or null (no invite, not the tracker's callback, unknown,
 * used up or expired). The tracker stores an invite's id as its hash (sql/0015_hashed_ids.sql).
 */
export async function inviteContext(sql: Sql, ticketsUrl: string | null, returnTo: string, now: number): Promise<InviteContext | null> {
  if (ticketsUrl === null || returnTo === '') return null
  let url: URL
  try {
    url = new URL(returnTo)
  } catch {
    return null
  }
  if (url.origin !== new URL(ticketsUrl).origin || !url.pathname.endsWith('/login/callback')) return null
  const id = url.searchParams.get('invite') ?? ''
  if (id === '' || id.length > 100) return null
  const [row] = await sql<{ title: string; role: string; inviter: string }[]>`
    select p.title, i.role, u.name as inviter
    from invites i join projects p on p.id = i.project_id join users u on u.id = i.created_by
    where i.id = ${hashSecret(id)} and i.uses_left > 0 and i.expires > ${now}`
  return row ? { project: row.title, inviter: row.inviter, role: row.role } : null
}
