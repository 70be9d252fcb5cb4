/**
 * Sharing the open note: **Publish** makes a read-only page at `/p/<id>` that anyone with the
 * link can read and that follows later saves; **Unpublish** ends the link at once. Publishing
 * needs the server, so offline the panel says so instead.
 *
 * @module
 */
import { $, type App } from './app.ts'

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

  async function load(id: string): Promise<void> {
    problem(null)
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
