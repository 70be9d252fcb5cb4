/**
 * The ticket service's route table, in the order of the numbered sections of docs/tickets-api.md:
 * someone holding the document finds every row here. The connect page and its confirmation
 * (docs/connect-apps.md) sit with 4.9.
 */
import type { HttpRoute, Handler } from '../http/handler.ts'
import type { ChangeHandlers } from './api/changes.ts'
import type { ConnectHandlers } from './api/connect.ts'
import type { FileHandlers } from './api/files.ts'
import type { AddressHandlers } from './pages/addresses.ts'
import type { ProjectHandlers } from './api/projects.ts'
import type { RelationHandlers } from './api/relations.ts'
import type { OrganiseHandlers } from './api/organise.ts'
import type { TicketHandlers } from './api/tickets.ts'
import type { TokenHandlers } from './api/tokens.ts'
import type { WebHandlers } from './pages/web.ts'
import type { WebhookHandlers } from './api/webhooks.ts'
import type { InviteListHandlers } from './api/invites.ts'
import type { UnsubscribeHandlers } from './pages/unsubscribe-page.ts'
import type { ViewHandlers } from './api/views.ts'
import type { NotificationHandlers } from './api/notifications.ts'

export interface Handlers {
  tickets: TicketHandlers
  changes: ChangeHandlers
  relations: RelationHandlers
  organise: OrganiseHandlers
  projects: ProjectHandlers
  invite: Handler
  invites: InviteListHandlers
  inbox: Handler
  login: Handler
  addresses: AddressHandlers
  web: WebHandlers
  tokens: TokenHandlers
  connect: ConnectHandlers
  live: Handler
  webhooks: WebhookHandlers
  files: FileHandlers
  unsubscribe: UnsubscribeHandlers
  views: ViewHandlers
  notifications: NotificationHandlers
  bulk: Handler
  bulkCount: Handler
}

export function ticketRoutes(h: Handlers): HttpRoute[] {
  const onTicket = (suffix: string, handler: Handler): HttpRoute[] => [
    { method: 'POST', path: `/api/tickets/:ref/${suffix}`, handler },
    { method: 'POST', path: `/api/projects/:slug/tickets/:number/${suffix}`, handler },
  ]
  return [
    // 4.1 Tickets: lists and creation
    { method: 'GET', path: '/api/tickets', handler: h.tickets.list },
    { method: 'POST', path: '/api/tickets', handler: h.tickets.create },
    { method: 'GET', path: '/api/projects/:slug/tickets', handler: h.tickets.listInProject },
    { method: 'POST', path: '/api/projects/:slug/tickets', handler: h.tickets.createInProject },
    // 4.2 Single ticket
    { method: 'GET', path: '/api/tickets/:ref', handler: h.tickets.show },
    { method: 'GET', path: '/api/projects/:slug/tickets/:number', handler: h.tickets.showByNumber },
    // 4.3 Comment, 4.4 State change, 4.5 Assign, 4.6 Edit
    ...onTicket('comments', h.changes.comment),
    ...onTicket('state', h.changes.state),
    ...onTicket('assign', h.changes.assign),
    ...onTicket('edit', h.changes.edit),
    // 4.7 Relations
    ...onTicket('parent', h.relations.parent),
    ...onTicket('blocked-by', h.relations.blockedBy),
    // 4.8 Projects and members
    { method: 'GET', path: '/api/projects', handler: h.projects.list },
    { method: 'POST', path: '/api/projects', handler: h.projects.create },
    { method: 'GET', path: '/api/projects/:slug', handler: h.projects.show },
    { method: 'POST', path: '/api/projects/:slug', handler: h.projects.update },
    { method: 'POST', path: '/api/projects/:slug/members', handler: h.projects.setMember },
    {
      method: 'POST',
      path: '/api/projects/:slug/members/remove',
      handler: h.projects.removeMember,
    },
    { method: 'GET', path: '/api/projects/:slug/invites', handler: h.invites.list },
    { method: 'POST', path: '/api/projects/:slug/invites', handler: h.invite },
    { method: 'POST', path: '/api/projects/:slug/invites/:id/revoke', handler: h.invites.revoke },
    { method: 'GET', path: '/api/inbox', handler: h.inbox },
    // 4.9 Connecting an app: GET /connect takes every method, since its 405 is an HTML page
    { method: '*', path: '/connect', handler: h.connect.start },
    {
      method: 'POST',
      path: '/api/connect/exchange',
      handler: h.connect.exchange,
      rateLimit: 'signin',
    },
    { method: 'GET', path: '/api/projects/:slug/connections', handler: h.connect.list },
    { method: 'POST', path: '/api/projects/:slug/connections/remove', handler: h.connect.remove },
    { method: '*', path: '/connect/:nonce', handler: h.connect.page },
    { method: 'POST', path: '/api/connect/:nonce/confirm', handler: h.connect.confirm },
    // 4.10 Login return: every method, since its 405 is an HTML page
    { method: '*', path: '/login/callback', handler: h.login, rateLimit: 'signin' },
    { method: 'GET', path: '/login', handler: h.addresses.login, rateLimit: 'signin' },
    // 4.11 Old and short page addresses
    { method: 'GET', path: '/tickets/:ref', handler: h.addresses.oldTicket },
    { method: 'GET', path: '/projects/:slug', handler: h.addresses.oldProject },
    { method: 'GET', path: '/projects/:slug/:number', handler: h.addresses.oldProjectTicket },
    {
      method: 'GET',
      path: '/projects/:slug/tickets/:number',
      handler: h.addresses.oldProjectTicket,
    },
    // 4.12 Webhooks (docs/webhooks.md)
    { method: 'GET', path: '/api/projects/:slug/webhooks', handler: h.webhooks.list },
    { method: 'POST', path: '/api/projects/:slug/webhooks', handler: h.webhooks.create },
    { method: 'POST', path: '/api/projects/:slug/webhooks/:id', handler: h.webhooks.update },
    { method: 'POST', path: '/api/projects/:slug/webhooks/:id/rotate', handler: h.webhooks.rotate },
    { method: 'POST', path: '/api/projects/:slug/webhooks/:id/remove', handler: h.webhooks.remove },
    { method: 'POST', path: '/api/projects/:slug/webhooks/:id/test', handler: h.webhooks.test },
    {
      method: 'GET',
      path: '/api/projects/:slug/webhooks/:id/deliveries',
      handler: h.webhooks.deliveries,
    },
    {
      method: 'POST',
      path: '/api/projects/:slug/webhooks/:id/deliveries/:delivery/redeliver',
      handler: h.webhooks.redeliver,
    },
    // 4.14 Labels, milestones and due dates (docs/tickets-api.md, "Labels, milestones and due dates")
    { method: 'GET', path: '/api/projects/:slug/labels', handler: h.organise.labels },
    { method: 'POST', path: '/api/projects/:slug/labels', handler: h.organise.createLabel },
    { method: 'POST', path: '/api/projects/:slug/labels/:name', handler: h.organise.updateLabel },
    {
      method: 'POST',
      path: '/api/projects/:slug/labels/:name/remove',
      handler: h.organise.removeLabel,
    },
    { method: 'GET', path: '/api/projects/:slug/milestones', handler: h.organise.milestones },
    { method: 'POST', path: '/api/projects/:slug/milestones', handler: h.organise.createMilestone },
    {
      method: 'POST',
      path: '/api/projects/:slug/milestones/:title',
      handler: h.organise.updateMilestone,
    },
    {
      method: 'POST',
      path: '/api/projects/:slug/milestones/:title/remove',
      handler: h.organise.removeMilestone,
    },
    ...onTicket('labels', h.organise.ticketLabels),
    ...onTicket('milestone', h.organise.ticketMilestone),
    ...onTicket('due', h.organise.ticketDue),
    // 4.13 Files (docs/tickets-api.md, "Files")
    { method: 'GET', path: '/api/projects/:slug/files', handler: h.files.list },
    { method: 'POST', path: '/api/projects/:slug/files', handler: h.files.upload },
    { method: 'GET', path: '/files/:id/:name', handler: h.files.serve },
    // 4.16 Saved views and bulk changes (docs/tickets-api.md)
    { method: 'GET', path: '/api/projects/:slug/views', handler: h.views.list },
    { method: 'POST', path: '/api/projects/:slug/views', handler: h.views.save },
    { method: 'POST', path: '/api/projects/:slug/views/:id', handler: h.views.change },
    { method: 'POST', path: '/api/projects/:slug/views/:id/remove', handler: h.views.remove },
    { method: 'POST', path: '/api/projects/:slug/tickets/bulk', handler: h.bulk },
    { method: 'GET', path: '/api/projects/:slug/tickets/count', handler: h.bulkCount },
    // 4.15 Notifications (docs/tickets-api.md, "Notifications"; docs/notifications.md)
    { method: 'GET', path: '/api/notifications', handler: h.notifications.list },
    { method: 'POST', path: '/api/notifications/read', handler: h.notifications.read },
    { method: 'GET', path: '/api/notifications/settings', handler: h.notifications.prefs },
    { method: 'POST', path: '/api/notifications/settings', handler: h.notifications.setPrefs },
    { method: 'POST', path: '/api/notifications/defaults', handler: h.notifications.setDefaults },
    ...onTicket('watch', h.notifications.watchTicket),
    { method: 'POST', path: '/api/projects/:slug/watch', handler: h.notifications.watchProject },
    // The web app (docs/tickets-app.md): its pages, files and sign-out
    { method: '*', path: '/', handler: h.web.home },
    { method: '*', path: '/inbox', handler: h.web.inbox },
    { method: '*', path: '/settings', handler: h.web.settings },
    { method: '*', path: '/settings/notifications', handler: h.web.notificationSettings },
    { method: '*', path: '/notifications', handler: h.web.notifications },
    { method: '*', path: '/tickets', handler: h.web.search },
    { method: 'GET', path: '/assets/:file', handler: h.web.asset },
    { method: 'POST', path: '/logout', handler: h.web.logout },
    // The one-click unsubscribe of notification mails (docs/notifications.md): no cookie, the token is the proof
    { method: 'GET', path: '/unsubscribe/:token', handler: h.unsubscribe.show },
    { method: 'POST', path: '/unsubscribe/:token', handler: h.unsubscribe.turnOff },
    { method: '*', path: '/:slug', handler: h.web.project },
    { method: '*', path: '/:slug/settings', handler: h.web.admin },
    { method: '*', path: '/:slug/milestones', handler: h.web.milestones },
    { method: '*', path: '/:slug/board', handler: h.web.board },
    { method: '*', path: '/:slug/:number', handler: h.web.ticket },
    // Tokens and the session (docs/tickets-api.md): tokens and the page's own view of its session
    { method: 'GET', path: '/api/tokens', handler: h.tokens.list },
    { method: 'POST', path: '/api/tokens', handler: h.tokens.issue },
    { method: 'POST', path: '/api/tokens/revoke', handler: h.tokens.revoke },
    { method: 'GET', path: '/api/me', handler: h.tokens.me },
    // Live events: delivered to pages by long-polling (docs/live-events.md)
    { method: 'GET', path: '/api/live', handler: h.live },
  ]
}
