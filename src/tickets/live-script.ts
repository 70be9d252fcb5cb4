/**
 * The script the short project and ticket pages carry so an open page follows writes made
 * anywhere (the API, another page, a connected app): it long-polls `GET /api/live` for the page's
 * project and, when an event touches what the page shows, fetches the page again and swaps in
 * its `#live` part. No build step: it is plain browser JavaScript, inlined into the page.
 *
 * The page marks its live part `<main id="live" data-project="<slug>" data-ticket="<id>"
 * data-cursor="<cursor>">` (`data-ticket` only on a ticket page), the cursor read before the
 * page's content, so the first poll answers whatever was written since.
 */

/** The script's source, for a `<script>` element. */
export const LIVE_SCRIPT = `(() => {
  const main = document.getElementById('live')
  if (!main || !window.fetch) return
  const project = main.dataset.project
  const ticket = main.dataset.ticket || null
  // The cursor when the page was rendered: no event after it is missed.
  let cursor = main.dataset.cursor || null
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  // A project page redraws for any event of its project (the poll asks for that project only);
  // a ticket page for events of its ticket and for related-ticket views that include it.
  const touches = (event) => {
    if (!ticket) return true
    if (event.name === 'ticketEvent') return event.args[0] === ticket
    if (event.name === 'ticketsRelated') return JSON.stringify(event.args).includes(ticket)
    return false
  }
  async function redraw() {
    const res = await fetch(location.pathname, { headers: { accept: 'text/html' }, cache: 'no-store' })
    if (!res.ok) return
    const fresh = new DOMParser().parseFromString(await res.text(), 'text/html')
    const part = fresh.getElementById('live')
    if (!part) return
    main.innerHTML = part.innerHTML
    document.title = fresh.title
    const heading = fresh.querySelector('h1')
    if (heading && document.querySelector('h1')) document.querySelector('h1').textContent = heading.textContent
    document.documentElement.dataset.redrawn = String(Number(document.documentElement.dataset.redrawn || 0) + 1)
  }
  async function follow() {
    for (;;) {
      try {
        const query = new URLSearchParams({ project })
        if (cursor !== null) query.set('after', cursor)
        const res = await fetch('/api/live?' + query, { cache: 'no-store' })
        if (res.status === 503) {
          await sleep(1000 * (Number(res.headers.get('retry-after')) || 5))
          continue
        }
        if (!res.ok) {
          await sleep(5000)
          continue
        }
        const answer = await res.json()
        cursor = String(answer.cursor)
        if (answer.reset || answer.events.some(touches)) await redraw()
      } catch {
        await sleep(5000)
      }
    }
  }
  follow()
})()`
