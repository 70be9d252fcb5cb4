/**
 * Sharing the open note with people of this install (**Share** to a name, **can edit** or **can
 * read**, **Stop sharing**), and **Publish** makes a read-only page at `/p/<id>` that anyone with the
 * link can read and that follows later saves; **Unpublish** ends the link at once. Publishing
 * needs the server, so offline the panel says so instead.
 *
 * @module
 */
import { $, type App } from './app.ts'
import type { ShareOut } from './sync.ts'

/** A person as `GET /api/notes/people` answers. */
interface Person {
  id: string
  name: string
}

/** A publication as the API answers it. */
interface Publication {
  note: string
  id: string
  url: string
}

export function createShareView(app: App) {
  const { ui, state, act } = app

  function drawPublication(publication: Publication | null): void {
    $('publish').hidden = publication !== null
    $('published-link').hidden = publication === null
    const link = $<HTMLInputElement>('published-url')
    link.value = publication?.url ?? ''
    $<HTMLAnchorElement>('published-open').href = publication?.url ?? '#'
    $('publish-hint').textContent =
      publication === null
        ? 'Publish makes a read-only page of this note that anyone with its link can read, with your later saves. Unpublish ends the link at once.'
        : 'Anyone with this link can read the note, with your later saves. Unpublish ends the link at once; publishing again makes a new one.'
  }

  function problem(text: string | null): void {
    const p = $('publish-problem')
    p.hidden = text === null
    p.textContent = text ?? ''
  }

  function shareProblem(text: string | null): void {
    const p = $('share-problem')
    p.hidden = text === null
    p.textContent = text ?? ''
    $('share-name').setAttribute('aria-invalid', String(text !== null))
  }

  /** The people the open note is shared with, each with its access and Stop sharing. */
  function drawPeople(id: string): void {
    const shares = state.sharesOut.get(id) ?? []
    const items = shares.map((share) => {
      const li = document.createElement('li')
      const who = document.createElement('span')
      who.className = 'who'
      who.textContent = share.person.name
      const access = document.createElement('select')
      access.setAttribute('aria-label', `Access for ${share.person.name}`)
      for (const [value, label] of [
        ['edit', 'can edit'],
        ['read', 'can read'],
      ] as const) {
        const option = document.createElement('option')
        option.value = value
        option.textContent = label
        option.selected = share.access === value
        access.append(option)
      }
      access.addEventListener(
        'change',
        () => void shareWith(id, share.person, access.value as ShareOut['access']),
      )
      const stop = document.createElement('button')
      stop.type = 'button'
      stop.className = 'danger'
      stop.textContent = 'Stop sharing'
      stop.setAttribute('aria-label', `Stop sharing with ${share.person.name}`)
      stop.addEventListener('click', () => void unshare(id, share.person))
      li.append(who, access, stop)
      return li
    })
    $('people').replaceChildren(...items)
    $('people').hidden = items.length === 0
  }

  /** Takes the server's answer into the shares the app knows, and draws them. */
  function sharesChanged(id: string, next: ShareOut[]): void {
    if (next.length === 0) state.sharesOut.delete(id)
    else state.sharesOut.set(id, next)
    localStorage.setItem(
      `notes-shares-${app.userId}`,
      JSON.stringify([...state.sharesOut.values()].flat()),
    )
    drawPeople(id)
    act.drawList()
    const note = state.notes.get(id)
    if (note) act.drawMeta(note)
    act.followOpen()
  }

  async function shareWith(id: string, person: Person, access: ShareOut['access']): Promise<void> {
    const answer = await app.send('POST', '/api/notes/shares', {
      op: 'share',
      id,
      person: person.id,
      access,
    })
    if (state.openId !== id) return
    if (answer === null) return shareProblem('Sharing needs a connection: try again when online.')
    if (answer.status === 404)
      return shareProblem('This note has not reached the server yet: share it once it is saved.')
    if (answer.status !== 200)
      return shareProblem(`Could not share (${answer.body?.error ?? answer.status}).`)
    shareProblem(null)
    $('share-choices').hidden = true
    $<HTMLInputElement>('share-name').value = ''
    const made = answer.body as ShareOut
    const others = (state.sharesOut.get(id) ?? []).filter((s) => s.person.id !== person.id)
    sharesChanged(id, [...others, made])
    act.toast(
      `Shared with ${made.person.name}: ${made.access === 'edit' ? 'they can edit it' : 'they can read it'}.`,
      null,
    )
  }

  async function unshare(id: string, person: Person): Promise<void> {
    const answer = await app.send('POST', '/api/notes/shares', {
      op: 'unshare',
      id,
      person: person.id,
    })
    if (state.openId !== id) return
    if (answer === null)
      return shareProblem('Stopping needs a connection: try again when this device is online.')
    if (answer.status !== 200)
      return shareProblem(`Could not stop sharing (${answer.body?.error ?? answer.status}).`)
    shareProblem(null)
    sharesChanged(
      id,
      (state.sharesOut.get(id) ?? []).filter((s) => s.person.id !== person.id),
    )
    act.toast(`No longer shared with ${person.name}.`, null)
    $('share-name').focus()
  }

  /** The Share button of the form: the person of that name, or a choice among several. */
  async function submitShare(): Promise<void> {
    const id = state.openId
    const name = $<HTMLInputElement>('share-name').value.trim()
    const access = $<HTMLSelectElement>('share-access').value as ShareOut['access']
    if (id === null) return
    if (name === '') return shareProblem('Type the name of the person to share with.')
    await act.saveNow()
    await app.sync.flush().catch(() => false)
    const answer = await app.send('GET', `/api/notes/people?name=${encodeURIComponent(name)}`)
    if (state.openId !== id) return
    if (answer === null) return shareProblem('Sharing needs a connection: try again when online.')
    if (answer.status !== 200)
      return shareProblem(`Could not look for ${name} (${answer.body?.error ?? answer.status}).`)
    const people = answer.body.people as Person[]
    if (people.length === 0)
      return shareProblem(
        `No one named “${name}” uses these Notes yet: they appear once they have signed in.`,
      )
    if (people.length === 1) return shareWith(id, people[0]!, access)
    shareProblem(null)
    const choices = people.map((person) => {
      const li = document.createElement('li')
      const button = document.createElement('button')
      button.type = 'button'
      button.textContent = `Share with ${person.name}`
      button.addEventListener('click', () => void shareWith(id, person, access))
      li.append(button)
      return li
    })
    $('share-choices').replaceChildren(...choices)
    $('share-choices').hidden = false
  }

  async function load(id: string): Promise<void> {
    problem(null)
    shareProblem(null)
    $('share-choices').hidden = true
    drawPeople(id)
    void app.send('GET', '/api/notes/shares').then((mine) => {
      if (mine?.status !== 200 || state.openId !== id || ui.share.hidden) return
      const all = mine.body.shares as ShareOut[]
      sharesChanged(
        id,
        all.filter((s) => s.note === id),
      )
    })
    $('publish-block').setAttribute('aria-busy', 'true')
    const answer = await app.send('GET', '/api/notes/publications')
    $('publish-block').removeAttribute('aria-busy')
    if (state.openId !== id || ui.share.hidden) return
    if (answer === null) {
      $('publish').hidden = true
      $('published-link').hidden = true
      $('publish-hint').textContent = ''
      return problem('Publishing needs a connection: it shows when this device is online.')
    }
    if (answer.status !== 200)
      return problem(
        `Could not read whether this note is published (${answer.body?.error ?? answer.status}).`,
      )
    const list = answer.body.publications as Publication[]
    drawPublication(list.find((p) => p.note === id) ?? null)
  }

  async function change(op: 'publish' | 'unpublish'): Promise<void> {
    const id = state.openId
    if (id === null) return
    // A note never saved cannot be published yet: it is sent first.
    if (op === 'publish') {
      await act.saveNow()
      await app.sync.flush().catch(() => false)
    }
    const answer = await app.send('POST', '/api/notes/publications', { op, id })
    if (state.openId !== id) return
    if (answer === null)
      return problem(
        `${op === 'publish' ? 'Publishing' : 'Unpublishing'} needs a connection: try again when this device is online.`,
      )
    if (answer.status === 404)
      return problem('This note has not reached the server yet: publish it once it is saved.')
    if (answer.status !== 200)
      return problem(`Could not ${op} (${answer.body?.error ?? answer.status}).`)
    problem(null)
    drawPublication(op === 'publish' ? (answer.body as Publication) : null)
    act.toast(
      op === 'publish'
        ? 'Published: anyone with the link can read this note.'
        : 'Unpublished: the link no longer works.',
      null,
    )
    ;(op === 'publish' ? $('published-url') : $('publish')).focus()
  }

  const view = {
    async showShare(): Promise<void> {
      const id = state.openId
      if (id === null) return
      await act.saveNow()
      ui.share.hidden = false
      ui.editor.hidden = true
      ui.reading.hidden = true
      ui.history.hidden = true
      ui.compare.hidden = true
      $('share-title').focus()
      await load(id)
    },

    closeShare(): void {
      if (ui.share.hidden) return
      ui.share.hidden = true
      act.showMode()
    },

    wireShare(): void {
      $('share-button').addEventListener('click', () => void view.showShare())
      $('share-close').addEventListener('click', () => {
        view.closeShare()
        $('share-button').focus()
      })
      $('share-form').addEventListener('submit', (e) => {
        e.preventDefault()
        void submitShare()
      })
      $('publish').addEventListener('click', () => void change('publish'))
      $('unpublish').addEventListener('click', () => void change('unpublish'))
      $('copy-link').addEventListener('click', () => {
        const url = $<HTMLInputElement>('published-url')
        url.select()
        void navigator.clipboard?.writeText(url.value).then(
          () => act.toast('Link copied.', null),
          () => {},
        )
      })
    },
  }
  return view
}
