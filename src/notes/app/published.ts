/**
 * The script of a published note's page (`/p/<id>`): while the page is shown it asks the same
 * address again every few seconds (a 304 while nothing changed) and puts a newer text in place,
 * so the reader follows the owner's saves; an address no longer published says so.
 *
 * @module
 */

const FOLLOW_MS = 5_000

const main = document.getElementById('published')
const status = document.getElementById('published-status')
let etag: string | null = null

async function follow(): Promise<void> {
  if (document.visibilityState !== 'visible' || !main || !status) return
  let answer: Response
  try {
    answer = await fetch(location.href, {
      cache: 'no-cache',
      headers: etag ? { 'if-none-match': etag } : {},
    })
  } catch {
    return
  }
  if (answer.status === 404) {
    main.replaceChildren()
    const gone = document.createElement('p')
    gone.textContent = 'This note is no longer published.'
    main.append(gone)
    status.textContent = 'No longer published'
    clearInterval(timer)
    return
  }
  if (answer.status !== 200) return
  etag = answer.headers.get('etag')
  const page = new DOMParser().parseFromString(await answer.text(), 'text/html')
  const next = page.getElementById('published')
  const nextStatus = page.getElementById('published-status')
  if (!next || next.dataset.edited === main.dataset.edited) return
  // The page's own HTML, made by the server from the note (markdown.ts): moved in as it is.
  main.replaceChildren(...next.childNodes)
  main.dataset.edited = next.dataset.edited ?? ''
  if (nextStatus) status.replaceChildren(...nextStatus.childNodes)
  localTimes()
  document.title = page.title
}

const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** The page's times in the reader's own time zone and words (the server writes them in UTC). */
function localTimes(): void {
  for (const time of document.querySelectorAll('time'))
    time.textContent = LOCAL_TIME.format(new Date(time.dateTime))
}

localTimes()
const timer = setInterval(() => void follow(), FOLLOW_MS)
document.addEventListener('visibilitychange', () => void follow())
