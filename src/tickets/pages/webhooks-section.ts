/**
 * The Webhooks part of a project's settings page (docs/webhooks.md): each webhook with its
 * state (active, paused, or disabled and why), its buttons (Send test event, Pause or Resume,
 * Rotate secret, Remove) and its recent deliveries with Redeliver; then the form that adds one,
 * whose signing secret is shown once. Every button writes through the JSON API; a delivery
 * about to be sent marks itself `data-delivery-soon`, and the page's script then redraws the
 * log every few seconds until none is.
 */
import { html, type Html } from '../../http/html.ts'
import type { Delivery, Webhook } from '../store/webhooks.ts'
import { WEBHOOK_KINDS } from '../rules/webhook-events.ts'
import { field, formError, timeAgo } from './frame.ts'
import type { WebhookView } from './page-data.ts'

/** Deliveries shown per webhook on the page; the API answers the whole log. */
export const DELIVERIES_SHOWN = 10
/** A pending delivery due within this is "soon": the page keeps its log fresh. */
const SOON_MS = 60_000

function stateOf(w: Webhook): Html {
  if (w.disabled !== null) return html`<span class="pill hook-off">Disabled: ${w.disabled}</span>`
  return w.active
    ? html`<span class="pill hook-on">Active</span>`
    : html`<span class="pill">Paused</span>`
}

function outcomeOf(d: Delivery, now: number): Html {
  const code = d.status === null ? '' : html`<b>${String(d.status)}</b> `
  if (d.state === 'delivered') return html`${code}<span class="hook-ok">delivered</span>`
  if (d.state === 'failed')
    return html`${code}<span class="hook-bad">failed</span>${d.error ? html`<br><span class="small muted">${d.error}</span>` : ''}`
  if (d.attempts === 0) return html`<span class="muted">sending…</span>`
  return html`${code}<span class="hook-bad">retrying</span>${d.next !== null ? html` ${timeAgo(d.next, now)}` : ''}${d.error ? html`<br><span class="small muted">${d.error}</span>` : ''}`
}

function deliveryRow(api: string, d: Delivery, now: number): Html {
  const soon = d.state === 'pending' && d.next !== null && d.next - now < SOON_MS
  return html`<tr data-key="${d.id}"${soon ? html` data-delivery-soon` : ''}>
<td>${timeAgo(d.at ?? d.created, now)}</td>
<td><code>${d.type}</code>${d.attempts > 1 ? html`<br><span class="small muted">${String(d.attempts)} attempts</span>` : ''}</td>
<td>${outcomeOf(d, now)}</td>
<td>${d.durationMs === null ? html`<span class="muted">–</span>` : `${d.durationMs} ms`}</td>
<td>${d.answer ? html`<details class="hook-answer"><summary>Answer</summary><pre>${d.answer}</pre></details>` : html`<span class="muted">–</span>`}</td>
<td><form data-api="${api}/deliveries/${d.id}/redeliver" data-done="reload"><button type="submit">Redeliver</button>${formError}</form></td>
</tr>`
}

function webhookBlock(projectApi: string, w: WebhookView, now: number): Html {
  const api = `${projectApi}/webhooks/${w.id}`
  const kinds =
    w.events.length === 0
      ? html`every kind`
      : html`${w.events.map((k, i) => html`${i > 0 ? ', ' : ''}<code>${k}</code>`)}`
  return html`<article class="hook" data-key="${w.id}" aria-labelledby="hook-${w.id}">
<div class="hook-head"><h3 id="hook-${w.id}"><code>${w.url}</code></h3>${stateOf(w)}</div>
<p class="small muted">Events: ${kinds}${w.connection !== null ? ' · added by a connected app' : ''} · added ${timeAgo(w.created, now)}</p>
<div class="actions">
<form data-api="${api}/test" data-done="reload"><button type="submit">Send test event</button>${formError}</form>
<form data-api="${api}" data-done="reload">${
    w.active
      ? html`<button type="submit" name="active" value="false">Pause</button>`
      : html`<button type="submit" name="active" value="true">Resume</button>`
  }${formError}</form>
<form data-api="${api}/rotate" data-done="secret" data-secret="new-webhook-secret"><button type="submit" data-confirm="Make a new signing secret? The old one still signs for 24 hours.">Rotate secret</button>${formError}</form>
<form data-api="${api}/remove" data-done="reload"><button type="submit" class="danger" data-confirm="Remove the webhook to ${w.url}? Nothing more is sent there.">Remove</button>${formError}</form>
</div>
${
  w.deliveries.length
    ? html`<div class="table-wrap"><table class="list hook-log" aria-label="Deliveries to ${w.url}"><thead><tr><th>Time</th><th>Event</th><th>Status</th><th>Duration</th><th>Answer</th><th><span class="visually-hidden">Redeliver</span></th></tr></thead><tbody>
${w.deliveries.map((d) => deliveryRow(api, d, now))}
</tbody></table></div>`
    : html`<p class="small muted">Nothing delivered yet. Press <b>Send test event</b> to try it.</p>`
}
</article>`
}

/** The Webhooks section of `/<slug>/settings`. */
export function webhooksSection(input: {
  slug: string
  webhooks: readonly WebhookView[]
  now: number
  max: number
}): Html {
  const projectApi = `/api/projects/${input.slug}`
  return html`<section class="card" aria-labelledby="hooks-title">
<h2 id="hooks-title">Webhooks</h2>
<p class="muted">A webhook sends each change of this project to an address of yours, signed as <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> says, in order, and again until it arrives.</p>
<div data-live="webhooks">
${input.webhooks.length ? html`<div class="stack">${input.webhooks.map((w) => webhookBlock(projectApi, w, input.now))}</div>` : html`<p class="muted">No webhook yet.</p>`}
</div>
<div id="new-webhook-secret" class="notice" role="status" hidden>
<label for="new-webhook-secret-value">Signing secret: copy it now, it is not shown again</label>
<div class="secret"><input id="new-webhook-secret-value" type="text" readonly><button type="button" data-copy="new-webhook-secret-value">Copy</button></div>
</div>
<h3>Add a webhook</h3>
<form data-api="${projectApi}/webhooks" data-done="secret" data-secret="new-webhook-secret">
${field({ id: 'hook-url', name: 'url', label: 'Payload URL', hint: `where to POST each event; at most ${input.max} webhooks a project`, control: html`<input id="hook-url" name="url" type="url" required autocomplete="off" placeholder="https://example.com/hooks/tickets">` })}
<fieldset class="hook-kinds"><legend>Events</legend>
<p class="hint">Tick none for every kind.</p>
<div class="grid-kinds">${WEBHOOK_KINDS.map((k) => html`<label class="choice"><input type="checkbox" name="events" value="${k}" data-list> <code>${k}</code></label>`)}</div>
<p class="field-error" data-error-for="events" hidden></p>
</fieldset>
${formError}
<button type="submit" class="primary">Add webhook</button>
</form>
</section>`
}
