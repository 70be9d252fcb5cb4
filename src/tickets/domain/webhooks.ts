/**
 * A project's webhooks (docs/webhooks.md): who may manage them (an admin, every webhook of the
 * project; a connected app's key, only the webhooks it made) and how many a project may have.
 */
import { recordId } from '../../base/random.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import { tooManyWebhooks } from '../rules/messages.ts'
import { refuseRole, type Role } from '../rules/roles.ts'
import { WEBHOOKS_MAX } from '../rules/webhook-events.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Webhook } from '../store/webhooks.ts'
import { ADMIN } from './projects.ts'

/** Refuses a person who is not an admin of the project; a key's own webhooks are its app's to manage. */
export function refuseWebhookManager(role: Role | null): Refusal | null {
  return refuseRole(role, ADMIN, 'project')
}

/** What a new webhook is: its checked address, its events and whether it starts active. */
export interface NewWebhook {
  url: string
  events: string[]
  active: boolean
  secret: string
}

/**
 * Adds a webhook to the project, made by the app of `connection` (null: by a person), unless the
 * project has {@link WEBHOOKS_MAX} already: counted with the project's webhooks locked, so two
 * adds at once cannot pass the limit together.
 */
export async function addWebhook(
  tx: TicketTx,
  projectId: string,
  connection: string | null,
  input: NewWebhook,
): Promise<{ ok: true; webhook: Webhook } | Refusal> {
  if ((await tx.webhooks.lockedCount(projectId)) >= WEBHOOKS_MAX)
    return refuse(400, tooManyWebhooks(WEBHOOKS_MAX), 'url')
  const webhook = await tx.webhooks.insert({ id: recordId(), projectId, connection, ...input })
  return { ok: true, webhook }
}
