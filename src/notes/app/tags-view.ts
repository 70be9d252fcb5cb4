/**
 * The tag list beside the notes: every tag with how many notes have it, sub-tags folded under
 * their parent, choosing one to filter the list (it types `#tag` into the search box, so the
 * search and the tag list are one filter), and renaming the chosen tag in every note.
 *
 * @module
 */
import { $, type App } from './app.ts'
import { tagSearched } from './search.ts'
import { isTagName, tagKey, type TagNode } from './tags.ts'

/** The rule a new tag name must follow, said next to the field. */
export const TAG_NAME_RULE =
  'A tag starts with a letter and has no spaces, like “work” or “work/plans”.'

export function createTagsView(app: App) {
  const { ui, state, act } = app
  /** Tags whose sub-tags are shown. */
  const unfolded = new Set<string>()
  /** What the list last drew, to leave it be when nothing it shows changed. */
  let drawn = ''

  function noteCount(n: number): string {
    return n === 1 ? ' note' : ' notes'
  }

  function tagItem(node: TagNode, chosen: string | null): HTMLLIElement {
    const li = document.createElement('li')
    const row = document.createElement('div')
    row.className = 'tag-row'
    const open = unfolded.has(node.tag)
    if (node.children.length > 0) {
      const fold = document.createElement('button')
      fold.type = 'button'
      fold.className = 'fold'
      fold.dataset.fold = node.tag
      fold.setAttribute('aria-expanded', String(open))
      fold.setAttribute('aria-label', `Sub-tags of #${node.tag}`)
      row.append(fold)
    }
    const button = document.createElement('button')
    button.type = 'button'
    button.className = 'tag'
    button.dataset.tag = node.tag
    button.setAttribute('aria-pressed', String(node.tag === chosen))
    const label = document.createElement('span')
    label.className = 'tag-label'
    label.textContent = `#${node.label}`
    const count = document.createElement('span')
    count.className = 'count'
    const words = document.createElement('span')
    words.className = 'visually-hidden'
    words.textContent = noteCount(node.count)
    count.append(String(node.count), words)
    button.append(label, count)
    if (node.tag.includes('/')) button.title = `#${node.tag}`
    row.append(button)
    li.append(row)
    if (open && node.children.length > 0) {
      const sub = document.createElement('ul')
      sub.append(...node.children.map((child) => tagItem(child, chosen)))
      li.append(sub)
    }
    return li
  }

  function allNotesItem(chosen: string | null): HTMLLIElement {
    const li = document.createElement('li')
    const button = document.createElement('button')
    button.type = 'button'
    button.className = 'tag all'
    button.dataset.tag = ''
    button.setAttribute('aria-pressed', String(chosen === null && ui.search.value.trim() === ''))
    button.textContent = 'All notes'
    li.append(button)
    return li
  }

  function showRenameForm(show: boolean): void {
    const form = $<HTMLFormElement>('rename-form')
    const input = $<HTMLInputElement>('rename-to')
    form.hidden = !show
    $('rename-tag').setAttribute('aria-expanded', String(show))
    setError(null)
    if (show) {
      input.value = $('tag-chosen').textContent?.slice(1) ?? ''
      input.focus()
      input.select()
    }
  }

  function setError(text: string | null): void {
    const input = $<HTMLInputElement>('rename-to')
    const error = $('rename-error')
    error.hidden = text === null
    error.textContent = text ?? ''
    if (text === null) input.removeAttribute('aria-invalid')
    else input.setAttribute('aria-invalid', 'true')
  }

  async function rename(e: SubmitEvent): Promise<void> {
    e.preventDefault()
    const from = tagSearched(ui.search.value)
    if (from === null || act.refusedOutdated('to rename a tag')) return
    const to = $<HTMLInputElement>('rename-to').value.trim().replace(/^#/, '')
    if (!isTagName(to)) return setError(TAG_NAME_RULE)
    showRenameForm(false)
    if (tagKey(to) === from) return
    // The open note's typing is kept first, so the rename edits the text on the screen.
    await act.saveNow()
    let ids: string[]
    try {
      ids = await app.notes.renameTag(from, to)
    } catch (error) {
      act.noteError(error)
      await act.refreshStatus()
      return
    }
    const open = state.openId === null ? undefined : state.notes.get(state.openId)
    if (open && ids.includes(open.id) && !open.conflictOf) act.setEditorText(open.text)
    ui.search.value = `#${tagKey(to)}`
    act.sortAndDraw()
    app.channel?.postMessage({ ids })
    act.toast(`Renamed #${from} to #${to} in ${ids.length}${noteCount(ids.length)}.`, null)
    void act.flushSoon()
  }

  const view = {
    /** Draws the tag list for the notes of the last sort and the search box's text. */
    drawTags(): void {
      const tree = state.tags
      const chosen = tagSearched(ui.search.value)
      // A chosen sub-tag shows with its parents unfolded.
      if (chosen !== null)
        for (let cut = chosen.lastIndexOf('/'); cut > 0; cut = chosen.lastIndexOf('/', cut - 1))
          unfolded.add(chosen.slice(0, cut))
      $('tags-none').hidden = tree.length > 0
      ui.tags.hidden = tree.length === 0
      // Drawn again only when the tags, their counts or what is unfolded changed; a tag chosen
      // only moves the pressed state, so the button pressed keeps its place and its focus.
      const key = `${[...unfolded].join(' ')}\n${JSON.stringify(tree)}`
      if (key !== drawn) {
        drawn = key
        ui.tags.replaceChildren(allNotesItem(chosen), ...tree.map((node) => tagItem(node, chosen)))
      } else {
        for (const button of ui.tags.querySelectorAll<HTMLButtonElement>('button.tag')) {
          const pressed =
            button.dataset.tag === ''
              ? chosen === null && ui.search.value.trim() === ''
              : button.dataset.tag === chosen
          if (button.getAttribute('aria-pressed') !== String(pressed))
            button.setAttribute('aria-pressed', String(pressed))
        }
      }
      const bar = $('tag-bar')
      if (chosen === null) {
        bar.hidden = true
        $('rename-form').hidden = true
      } else {
        if (bar.hidden || $('tag-chosen').textContent !== `#${chosen}`) showRenameForm(false)
        bar.hidden = false
        $('tag-chosen').textContent = `#${chosen}`
      }
    },

    wireTags(): void {
      // Open beside the notes on a wide screen; folded on a phone, where the notes come first.
      $<HTMLDetailsElement>('tags-box').open = window.matchMedia('(min-width: 44rem)').matches
      ui.tags.addEventListener('click', (e) => {
        const target = e.target as HTMLElement
        const fold = target.closest<HTMLButtonElement>('button.fold')
        if (fold?.dataset.fold !== undefined) {
          const tag = fold.dataset.fold
          if (unfolded.has(tag)) unfolded.delete(tag)
          else unfolded.add(tag)
          view.drawTags()
          ui.tags
            .querySelector<HTMLButtonElement>(`button.fold[data-fold="${CSS.escape(tag)}"]`)
            ?.focus()
          return
        }
        const button = target.closest<HTMLButtonElement>('button.tag')
        if (button?.dataset.tag === undefined) return
        const tag = button.dataset.tag
        // Choosing the chosen tag again shows every note.
        ui.search.value = tag === '' || tagSearched(ui.search.value) === tag ? '' : `#${tag}`
        act.drawList()
        // Drawn again only when choosing a sub-tag unfolded its parents: the focus goes back to it.
        if (!button.isConnected)
          ui.tags
            .querySelector<HTMLButtonElement>(`button.tag[data-tag="${CSS.escape(tag)}"]`)
            ?.focus()
      })
      $('rename-tag').addEventListener('click', () =>
        showRenameForm($('rename-form').hidden === true),
      )
      $('rename-cancel').addEventListener('click', () => {
        showRenameForm(false)
        $('rename-tag').focus()
      })
      $<HTMLFormElement>('rename-form').addEventListener('submit', (e) => void rename(e))
    },
  }
  return view
}
