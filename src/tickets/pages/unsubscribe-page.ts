/**
 * The one-click unsubscribe of notification mails (RFC 8058; docs/notifications.md,
 * "Unsubscribe"): `/unsubscribe/<token>`, the address every mail names in `List-Unsubscribe`.
 * The token in the address says who and which kind (src/tickets/workers/mail-worker.ts); no
 * cookie is read. `GET` shows a page with one button, so that a link opened by a mail scanner
 * changes nothing; `POST` (the button, or a mail client's `List-Unsubscribe=One-Click`) turns
 * that kind of mail off at once and says how to turn it back on.
 */
import { html, htmlPage, htmlResponse, type Html } from '../../http/html.ts'
import type { Request } from '../../http/request.ts'
import type { Response } from '../../http/response.ts'
import type { Context } from '../context.ts'
import { KIND_WORDS } from '../representations/mail.ts'
import { readUnsubscribeToken } from '../rules/unsubscribe.ts'

/** The row of `/settings/notifications` (src/tickets/pages/notifications-page.ts) for each kind. */
const ROW = {
  assigned: 'Assigned',
  mentioned: 'Mentioned',
  watching: 'Watched activity',
  due: 'Due dates',
} as const

const HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }

function unsubscribeDocument(stylesheet: string, title: string, body: Html): Html {
  const head = stylesheet ? html`<link rel="stylesheet" href="${stylesheet}">` : undefined
  return htmlPage(
    { title, head, bodyClass: 'connect' },
    html`<header class="top"><div class="top-inner"><span class="brand">Tickets</span></div></header>
<main class="page narrow"><div class="card">
<h1>${title}</h1>
${body}
</div></main>`,
  )
}

export type UnsubscribeHandlers = ReturnType<typeof createUnsubscribeHandlers>

/** `GET` and `POST /unsubscribe/:token`; `stylesheet` is the web app's. */
export function createUnsubscribeHandlers(ctx: Context, stylesheet: () => Promise<string>) {
  const settings = `${ctx.publicUrl}/settings/notifications`

  async function read(req: Request) {
    const key = await ctx.store.mail.unsubscribeKey()
    const token = readUnsubscribeToken(key, req.params.token ?? '')
    if (token === null) return null
    const user = await ctx.store.users.byId(token.userId)
    return user === null ? null : { ...token, name: user.name }
  }

  async function unknown(): Promise<Response> {
    const body = html`<p>This unsubscribe link is not one this tracker made, or its person is gone.</p>
<p>Choose which mail you get on <a href="${settings}">your notification settings</a>.</p>`
    return htmlResponse(404, unsubscribeDocument(await stylesheet(), 'Unsubscribe', body), HEADERS)
  }

  return {
    async show(req: Request): Promise<Response> {
      const found = await read(req)
      if (found === null) return unknown()
      const body = html`<p>Turn off ${KIND_WORDS[found.kind]} for <strong>${found.name}</strong>?</p>
<form method="post" action="/unsubscribe/${req.params.token ?? ''}"><p class="actions"><button type="submit" class="primary">Turn off this mail</button></p></form>
<p class="muted">Nothing changes until you press the button. Other mail, and what the app shows, stays as it is.</p>`
      return htmlResponse(
        200,
        unsubscribeDocument(await stylesheet(), 'Unsubscribe', body),
        HEADERS,
      )
    },
    async turnOff(req: Request): Promise<Response> {
      const found = await read(req)
      if (found === null) return unknown()
      await ctx.store.transact(async (tx) => {
        await tx.notifications.setMail(found.userId, found.kind, false)
        await tx.mail.cancelKind(found.userId, found.kind, ctx.clock())
      })
      const words = KIND_WORDS[found.kind]
      const body = html`<p role="status">${words[0]!.toUpperCase()}${words.slice(1)} is turned off for <strong>${found.name}</strong>. None is sent from now on, including what was waiting to go.</p>
<p>To turn it back on, open <a href="${settings}">your notification settings</a> and tick <strong>By mail</strong> on the row <strong>${ROW[found.kind]}</strong>. What the app shows is unchanged.</p>`
      return htmlResponse(
        200,
        unsubscribeDocument(await stylesheet(), 'Mail turned off', body),
        HEADERS,
      )
    },
  }
}
