/**
 * Connecting an app (docs/connect-apps.md, "The three steps"): what confirming a request does.
 * The person picks a project they administer, or makes one; the request is used up and a code
 * issued, which the app's server exchanges once for a project key.
 */
import { hashSecret, randomToken } from '../../base/random.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { NO_SUCH_PROJECT, NO_SUCH_REQUEST } from '../rules/messages.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { createProject, refuseUnlessAdmin } from './projects.ts'

/** A code must be exchanged within this time. */
export const CODE_MS = 5 * 60 * 1000

/** The `return` address with `code` and `state` added to its query, the app's own query kept as sent. */
function returnAddress(returnUrl: string, code: string, state: string): string {
  const url = new URL(returnUrl)
  const added = `code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`
  url.search = url.search === '' || url.search === '?' ? `?${added}` : `${url.search}&${added}`
  return url.href
}

type Confirmed = { ok: true; location: string } | Refusal

/**
 * Confirms a request for `user`: uses it up, picks the project (`project`, which they must
 * administer) or makes one (`title`), and issues a code. A refusal rolls everything back, so
 * the person can choose again.
 */
export async function confirmConnection(
  tx: TicketTx,
  actor: Actor,
  input: { nonce: string; project?: string; title?: string },
): Promise<Confirmed> {
  const request = await tx.connections.takeRequest(hashSecret(input.nonce))
  if (!request) return refuse(404, NO_SUCH_REQUEST)
  let project: Project
  if (input.project !== undefined) {
    const found = await tx.projects.find(input.project)
    if (!found) return refuse(404, NO_SUCH_PROJECT)
    const refused = await refuseUnlessAdmin(tx, found.id, actor.user.id)
    if (refused) return refused
    project = found
  } else {
    const made = await createProject(tx, actor, {
      title: input.title!,
      slug: null,
      description: '',
    })
    if (!made.ok) return made
    project = made.project
  }
  const code = randomToken(32)
  await tx.connections.insertCode(
    {
      hash: hashSecret(code),
      projectId: project.id,
      userId: actor.user.id,
      app: request.app,
      label: request.label,
    },
    CODE_MS,
  )
  return { ok: true, location: returnAddress(request.returnUrl, code, request.state) }
}
