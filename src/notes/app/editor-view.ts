/**
 * The open note: opening and closing it, the editor's text kept as it is typed, a new note, a
 * delete and its undo, and newer text from elsewhere taken in when the person is not typing.
 *
 * @module
 */
import { SAVE_AFTER_MS, TYPING_MS, UNDO_MS, type Actions, type App } from './app.ts'
import type { Shown } from './controller.ts'
import { toggleTask } from './tasks.ts'
import { forgetRescue } from './rescue.ts'
import { movedCaret, titleOf } from './text.ts'

export function createEditorView(app: App) {
  const { ui, state, act } = app
  let saveTimer = 0
  let refreshTimer = 0
  let saving: Promise<void> = Promise.resolve()

  /** A draft left without a word is forgotten. */
  function dropEmptyDraft(): void {
    if (app.notes.dropEmptyDraft(ui.editor.value)) act.sortAndDraw()
  }

  // The Markdown renderer (markdown-it, most of the app's script) is loaded on the first Read,
  // as a chunk of its own that the service worker keeps like every other file.
  let markdown: Promise<typeof import('./markdown.ts')> | null = null
  let drawing = 0

  /** Draws `text` as Markdown in the reading view, once the renderer is loaded. */
  function drawReading(text: string): void {
    const turn = ++drawing
    markdown ??= import('./markdown.ts')
    void markdown.then(
      ({ noteHtml }) => {
        // The text is markdown.ts's HTML: raw HTML off, safe links only, no image loaded.
        if (turn === drawing && !ui.reading.hidden) ui.reading.innerHTML = noteHtml(text)
      },
      (error: unknown) => {
        markdown = null
        act.noteError(error)
      },
    )
  }

  /**
   * A note shared to read only says so before anything is typed, and takes no typing; when its
   * share turns to "can edit", the editor takes typing again.
   */
  function readOnlyAsShared(note: Shown): void {
    const reading = note.shared?.access === 'read'
    const words = `${note.shared?.owner} shared this note with you to read: you cannot change it.`
    if (reading && !ui.editor.readOnly) act.showNotice(words)
    if (!reading && ui.editor.readOnly && ui.notice.textContent === words) ui.notice.hidden = true
    ui.editor.readOnly = reading
  }

  const view = {
    async openNote(id: string, options: { save?: boolean; focus?: boolean } = {}): Promise<void> {
      // Another note opens at once, with the text of the one left taken for saving first, so
      // that what is typed next lands in the note now shown.
      const saved = options.save !== false ? view.saveNow() : Promise.resolve()
      if (state.openId === id) await saved
      else dropEmptyDraft()
      const note = app.notes.open(id)
      if (!note) return
      app.address.show(id)
      act.closeTrash()
      act.closeImport()
      ui.app.dataset.view = 'note'
      ui.placeholder.hidden = true
      ui.history.hidden = true
      ui.notice.hidden = true
      // The last conflict's notice stays with its note and copy until one of them is sorted out.
      if (state.conflictNotice?.ids.includes(id)) act.showNotice(state.conflictNotice.text)
      ui.del.disabled = state.outdated
      ui.historyButton.disabled = false
      ui.pin.disabled = false
      ui.shareButton.disabled = note.conflictOf !== undefined || note.shared !== undefined
      ui.share.hidden = true
      ui.editor.readOnly = false
      readOnlyAsShared(note)
      view.drawMeta(note)
      if (note.conflictOf) {
        ui.reading.hidden = true
        act.showCompare(note)
        view.showMode()
      } else {
        ui.compare.hidden = true
        ui.editor.value = note.text
        view.showMode()
        if (options.focus && !ui.editor.hidden) ui.editor.focus()
      }
      act.drawList()
      act.followOpen()
      await saved
    },

    drawMeta(note: Shown): void {
      const edited = note.draft
        ? 'New note'
        : `Edited ${new Date(note.edited).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`
      const people = state.sharesOut.get(note.id)
      const shared = note.shared
        ? ` · shared by ${note.shared.owner}, ${note.shared.access === 'edit' ? 'you can edit' : 'read only'}`
        : people
          ? ` · shared with ${people.map((p) => p.person.name).join(', ')}`
          : ''
      ui.edited.textContent = edited + shared
    },

    closeNote(): void {
      app.notes.close()
      app.address.show(null)
      ui.app.dataset.view = 'list'
      ui.editor.value = ''
      ui.editor.hidden = false
      ui.reading.hidden = true
      ui.reading.replaceChildren()
      ui.compare.hidden = true
      ui.history.hidden = true
      ui.notice.hidden = true
      ui.placeholder.hidden = false
      ui.edited.textContent = ''
      ui.del.disabled = true
      ui.historyButton.disabled = true
      ui.pin.disabled = true
      ui.shareButton.disabled = true
      ui.share.hidden = true
      ui.editor.readOnly = false
      view.showMode()
      act.drawList()
      act.followOpen()
    },

    async newNote(): Promise<void> {
      // The button is disabled then; Alt+N still comes here.
      if (act.refusedOutdated('to write a new note')) return
      const saved = view.saveNow()
      const id = app.notes.addDraft()
      if (ui.search.value !== '') ui.search.value = ''
      act.sortAndDraw()
      await view.openNote(id, { save: false, focus: true })
      await saved
    },

    onInput(): void {
      if (state.outdated || ui.editor.readOnly) return
      state.dirty = true
      state.lastInput = Date.now()
      clearTimeout(saveTimer)
      saveTimer = window.setTimeout(() => void view.saveNow(), SAVE_AFTER_MS)
      void act.refreshStatus()
    },

    /** Stops the pending save of a pause in typing (the text is kept some other way). */
    cancelSave(): void {
      clearTimeout(saveTimer)
    },

    /**
     * Writes the editor's text to the copy (and queues its save), then sends. The note and its
     * text are taken at the call, not when the write before it is done: a person who clicks
     * another note or "New note" and types at once must not have the old note's text read
     * from an editor that already shows the new one.
     */
    saveNow(): Promise<void> {
      clearTimeout(saveTimer)
      const id = state.openId
      if (!state.dirty || id === null) return saving
      const text = ui.editor.value
      const from = app.notes.editStart()
      state.dirty = false
      saving = saving.then(async () => {
        try {
          const started = performance.now()
          const note = await app.notes.keepEdit(id, text, from)
          // Read by the bench (bench/notes-app.bench.ts): how long a keystroke takes to be kept.
          performance.measure('notes:keep-edit', { start: started })
          forgetRescue(app.userId)
          if (state.openId === id) view.drawMeta(note)
          act.sortAndDraw()
          app.channel?.postMessage({ ids: [id] })
        } catch (error) {
          if (state.openId === id && ui.editor.value === text) state.dirty = true
          act.noteError(error)
          await act.refreshStatus()
          return
        }
        void act.flushSoon()
      })
      return saving
    },

    async deleteOpen(): Promise<void> {
      const id = state.openId
      if (id === null || act.refusedOutdated('to delete a note')) return
      const note = state.notes.get(id)
      if (!note) return
      clearTimeout(saveTimer)
      if (note.draft) {
        state.dirty = false
        state.notes.delete(id)
        view.closeNote()
        act.sortAndDraw()
        return
      }
      await view.saveNow()
      try {
        await app.notes.remove(id, UNDO_MS)
      } catch (error) {
        act.noteError(error)
        return
      }
      view.closeNote()
      act.sortAndDraw()
      app.channel?.postMessage({ ids: [id] })
      await act.refreshStatus()
      act.toast(`Deleted “${titleOf(note.text)}”.`, async () => {
        if (act.refusedOutdated('to undo the delete')) return
        if (await app.local.undoRemove(id)) {
          await act.reloadIds([id])
          app.channel?.postMessage({ ids: [id] })
          await view.openNote(id, { save: true })
          await act.refreshStatus()
        }
      })
      setTimeout(() => void act.flushSoon(), UNDO_MS + 100)
    },

    /** Shows the open note's newer text unless the person is typing in it. */
    refreshOpen(): void {
      const id = state.openId
      if (id === null) return
      const note = state.notes.get(id)
      if (!note) {
        view.closeNote()
        return
      }
      if (note.conflictOf && ui.compare.hidden) return void view.openNote(id, { save: false })
      readOnlyAsShared(note)
      view.drawMeta(note)
      const typing = state.dirty || Date.now() - state.lastInput < TYPING_MS
      // Our own text came back accepted: its new base is the one to edit from.
      if (note.text === state.editorText) state.editorBase = note.base
      if (ui.editor.value === note.text) return
      if (!typing) {
        view.setEditorText(note.text)
        state.editorText = note.text
        state.editorBase = note.base
      } else {
        // Looked at again once the typing stops.
        clearTimeout(refreshTimer)
        refreshTimer = window.setTimeout(view.refreshOpen, TYPING_MS)
      }
    },

    setEditorText(text: string): void {
      const editor = ui.editor
      const before = editor.value
      const focused = document.activeElement === editor
      const start = movedCaret(before, text, editor.selectionStart)
      const end = movedCaret(before, text, editor.selectionEnd)
      editor.value = text
      if (focused) editor.setSelectionRange(start, end)
      if (!ui.reading.hidden) drawReading(text)
    },

    showMode(): void {
      const note = state.openId === null ? undefined : state.notes.get(state.openId)
      const reading = note !== undefined && !note.conflictOf && app.prefs.has('reading', note.id)
      ui.writeMode.setAttribute('aria-pressed', String(!reading))
      ui.readMode.setAttribute('aria-pressed', String(reading))
      ui.writeMode.disabled = ui.readMode.disabled =
        note === undefined || note.conflictOf !== undefined
      ui.pin.setAttribute('aria-pressed', String(note !== undefined && state.pinned.has(note.id)))
      if (!ui.history.hidden || !ui.compare.hidden || !ui.share.hidden) return
      ui.editor.hidden = reading
      ui.reading.hidden = !reading
      if (reading) drawReading(ui.editor.value)
      else {
        drawing++
        ui.reading.replaceChildren()
      }
    },

    /** Write or Read: the open note's choice, kept for it across reloads. */
    async chooseReading(reading: boolean): Promise<void> {
      const id = state.openId
      if (id === null) return
      await view.saveNow()
      app.prefs.set('reading', id, reading)
      view.showMode()
      if (!reading) ui.editor.focus()
    },

    /** Pin or unpin the open note: a pinned note stays at the top of the list. */
    togglePin(): void {
      const id = state.openId
      if (id === null) return
      act.choosePin(id, !state.pinned.has(id))
      act.sortAndDraw()
      void act.syncPins().catch(() => {})
      view.showMode()
    },

    /** A task box ticked in the reading view: an ordinary edit of its `[ ]`. */
    onTick(e: Event): void {
      const box = e.target
      if (!(box instanceof HTMLInputElement) || !box.classList.contains('task-box')) return
      if (ui.editor.readOnly) {
        box.checked = !box.checked
        act.showNotice('This note is shared with you to read: you cannot tick its tasks.')
        return
      }
      if (act.refusedOutdated('to tick a task')) {
        box.checked = !box.checked
        return
      }
      const text = toggleTask(ui.editor.value, Number(box.dataset.line), box.checked)
      if (text === null) return view.showMode()
      ui.editor.value = text
      view.onInput()
      void view.saveNow()
    },

    async backToList(): Promise<void> {
      await view.saveNow()
      const id = state.openId
      dropEmptyDraft()
      app.address.show(null)
      act.closeTrash()
      act.closeImport()
      ui.app.dataset.view = 'list'
      ui.history.hidden = true
      const item =
        id === null
          ? null
          : ui.list.querySelector<HTMLButtonElement>(`button.item[data-id="${CSS.escape(id)}"]`)
      ;(item ?? ui.search).focus()
    },
  } satisfies Partial<Actions> & Record<string, unknown>
  return view
}
