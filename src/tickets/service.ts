/** The ticket tracking service (docs/tickets-api.md). */
import { originOf } from '../http/guards.ts'
import type { Service, ServiceDeps } from '../service.ts'
import { createCredentials } from './credentials.ts'
import { createChangeHandlers } from './api/changes.ts'
import { createConnectHandlers } from './api/connect.ts'
import { createFileHandlers } from './api/files.ts'
import { createFileSweep, type FileSweep } from './workers/file-sweep.ts'
import { createDueSweep, type DueSweep } from './workers/due-sweep.ts'
import type { Context } from './context.ts'
import { createWake, type Wake } from './live/events.ts'
import { createInboxHandler } from './api/inbox.ts'
import { createLive } from './live/hub.ts'
import { createInviteHandler, createInviteListHandlers } from './api/invites.ts'
import { createLoginHandler } from './api/login.ts'
import { createMailer } from './mailer/mailer.ts'
import { createAddressHandlers } from './pages/addresses.ts'
import { createProjectHandlers } from './api/projects.ts'
import { createTicketStore } from './store/ticket-store.ts'
import { createRelationHandlers } from './api/relations.ts'
import { createOrganiseHandlers } from './api/organise.ts'
import { ticketRoutes } from './routes.ts'
import { createTicketHandlers } from './api/tickets.ts'
import { createTokenHandlers } from './api/tokens.ts'
import { buildTicketAssets, createWebHandlers } from './pages/web.ts'
import type { Assets } from '../http/assets.ts'
import { createWebhookHandlers } from './api/webhooks.ts'
import { createViewHandlers } from './api/views.ts'
import { createBulkCountHandler, createBulkHandler } from './api/bulk.ts'
import { createWebhookWorker, type Send, type WebhookWorker } from './workers/webhook-worker.ts'
import { createMailWorker, type MailWorker } from './workers/mail-worker.ts'
import { createUnsubscribeHandlers } from './pages/unsubscribe-page.ts'
import { createNotifyWorker, type NotifyWorker } from './workers/notify-worker.ts'
import { createNotificationHandlers } from './api/notifications.ts'

/** The ticket service; `wake` is pinged after every committed transaction that emitted events. */
export interface TicketsService extends Service {
  wake: Wake
  /** Delivers webhooks from the events outbox; started here, stopped by `close`. */
  webhooks: WebhookWorker
  /** Removes files no ticket names a day after their upload; started here unless told, stopped by `close`. */
  fileSweep: FileSweep
  /** Mails notifications when `SMTP_URL` is set (else null); started here unless told, stopped by `close`. */
  mail: MailWorker | null
  /** Turns the events outbox into notifications; started here unless told, stopped by `close`. */
  notify: NotifyWorker
  /** Sends due-date reminders; started here unless told, stopped by `close`. */
  dueSweep: DueSweep
}

/** What tests may set on the mail sender (src/tickets/workers/mail-worker.ts). */
export interface MailOptions {
  intervalMs?: number
  leaseMs?: number
  retryBaseMs?: number
  random?: () => number
  /** False: the sender does not start by itself (a test runs it by `poke`). */
  start?: boolean
}

/** What tests and benches may set on the webhook worker (src/tickets/workers/webhook-worker.ts). */
export interface WebhookOptions {
  random?: () => number
  send?: Send
  intervalMs?: number
  leaseMs?: number
  /** False: the worker does not start by itself (a test runs it by `poke`). */
  start?: boolean
}

/** Builds the ticket service. */
export function createTicketsService(
  deps: ServiceDeps & {
    /** What the pages cache between requests (src/tickets/store/page-reads.ts); 0 reads everything every time. */ cachedReads?: number
    webhooks?: WebhookOptions
    /** False: the file sweep does not run by itself (a test runs it). */ fileSweep?: boolean
    mail?: MailOptions
    /** False: the notifications' fan-out does not run by itself (a test runs it by `poke`). */ notify?: boolean
    /** False: the due-date reminders are not swept by themselves (a test runs the sweep). */ dueSweep?: boolean
    /** Bundles the web app's files; absent, a build of its own. Tests share one build a process. */
    buildAssets?: () => Promise<Assets>
  },
): TicketsService {
  const { sql, clock, publicUrl, sessions } = deps
  const origin = originOf(publicUrl)
  const wake = createWake()
  const mailer = deps.config.smtpUrl
    ? createMailer(deps.config.smtpUrl, deps.config.mailFrom, deps.logger)
    : null

  const store = createTicketStore({
    sql,
    clock,
    wake,
    ...(deps.cachedReads === undefined ? {} : { cachedReads: deps.cachedReads }),
  })
  const ctx: Context = {
    store,
    clock,
    publicUrl,
    origin,
    sessions,
    idp: deps.idp,
    logger: deps.logger,
    mailer,
    credentials: createCredentials({ store, clock, sessions, origin }),
    ...(deps.places ? { places: deps.places } : {}),
    uploadMaxMb: deps.config.uploadMaxMb,
  }

  const live = createLive({
    sql,
    clock,
    wake,
    logger: deps.logger,
    resolveProject: async (ref) => (await store.projects.find(ref))?.id ?? null,
    // `mine=1`: the poll also gets the signed-in person's own events (their bell).
    viewer: (req) => ctx.credentials.reader(req),
    // Other processes' writes arrive by NOTIFY on a shared server; the embedded database has
    // one process, whose own writes ping `wake`.
    listen: deps.config.databaseUrl !== null,
  })

  const hooks = deps.webhooks ?? {}
  const worker = createWebhookWorker({
    store,
    publicUrl,
    logger: deps.logger,
    allowPrivate: deps.config.webhookAllowPrivate,
    clock,
    wake,
    ...(hooks.random ? { random: hooks.random } : {}),
    ...(hooks.send ? { send: hooks.send } : {}),
    ...(hooks.intervalMs ? { intervalMs: hooks.intervalMs } : {}),
    ...(hooks.leaseMs ? { leaseMs: hooks.leaseMs } : {}),
  })
  if (hooks.start !== false) worker.start()

  const mailOptions = deps.mail ?? {}
  const mail = mailer
    ? createMailWorker({
        store,
        mailer,
        publicUrl,
        logger: deps.logger,
        clock,
        delayMs: deps.config.notifyDelaySeconds * 1000,
        ...mailOptions,
      })
    : null
  if (mail && mailOptions.start !== false) mail.start()

  const notify = createNotifyWorker({
    store,
    clock,
    logger: deps.logger,
    wake,
    mail: deps.config.smtpUrl !== null && deps.config.smtpUrl !== undefined,
  })
  if (deps.notify !== false) notify.start()

  const fileSweep = createFileSweep({ store, clock, logger: deps.logger })
  if (deps.fileSweep !== false) fileSweep.start()

  const dueSweep = createDueSweep({
    store,
    clock,
    logger: deps.logger,
    mail: deps.config.smtpUrl !== null && deps.config.smtpUrl !== undefined,
  })
  if (deps.dueSweep !== false) dueSweep.start()

  // The web app's script and stylesheet, bundled once in the background; pages wait for them.
  const assets = (deps.buildAssets ?? buildTicketAssets)()
  assets.catch(() => {})

  const routes = ticketRoutes({
    tickets: createTicketHandlers(ctx),
    changes: createChangeHandlers(ctx),
    relations: createRelationHandlers(ctx),
    organise: createOrganiseHandlers(ctx),
    projects: createProjectHandlers(ctx),
    invite: createInviteHandler(ctx),
    invites: createInviteListHandlers(ctx),
    inbox: createInboxHandler(ctx),
    login: createLoginHandler(ctx),
    addresses: createAddressHandlers(ctx),
    web: createWebHandlers(ctx, () => assets),
    tokens: createTokenHandlers(ctx),
    connect: createConnectHandlers(ctx, async () => {
      const files = await assets
      return { style: files.url('style'), script: files.url('connect') }
    }),
    live: live.handler,
    webhooks: createWebhookHandlers(ctx, {
      allowPrivate: deps.config.webhookAllowPrivate,
      poke: () => worker.poke(),
    }),
    files: createFileHandlers(ctx, deps.config),
    unsubscribe: createUnsubscribeHandlers(ctx, async () => (await assets).url('style')),
    views: createViewHandlers(ctx),
    notifications: createNotificationHandlers(ctx),
    bulk: createBulkHandler(ctx),
    bulkCount: createBulkCountHandler(ctx),
  })
  return {
    routes,
    wake,
    verifyCredential: (req) => ctx.credentials.owner(req),
    webhooks: worker,
    fileSweep,
    mail,
    notify,
    dueSweep,
    async close() {
      await fileSweep.stop()
      await dueSweep.stop()
      await notify.close()
      await mail?.close()
      mailer?.close()
      await worker.close()
      await live.close()
    },
  }
}
