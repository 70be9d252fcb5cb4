/**
 * Conflicted copies: telling that one was made, the two versions side by side, and the three
 * ways to sort one out.
 *
 * @module
 */
import { $, type Actions, type App } from './app.ts'
import { conflictWords } from './conflict-words.ts'
import type { Resolution, Shown } from './controller.ts'
import { drawParts, lineParts } from './diff-view.ts'

export function createConflictView(app: App) {
  const { ui, state, act } = app

  const view = {
    /**
     * Says that a conflict happened: above the note or the copy when one of them is open (and
     * again whenever one of them is opened, until the copy is sorted out), and in a message that
     * opens the copy unless it is open.
     */
    tellConflict(text: string, noteId: string, copyId: string): void {
      state.conflictNotice = { ids: [noteId, copyId], text }
      if (state.openId === noteId || state.openId === copyId) act.showNotice(text)
      // The copy open shows both versions already; anywhere else a message leads to it.
      if (state.openId !== copyId)
        act.toast(text, { label: 'Compare', run: () => act.openNote(copyId) })
    },

    showCompare(copy: Shown): void {
      const original = copy.conflictOf ? state.notes.get(copy.conflictOf) : undefined
      ui.editor.hidden = !original ? false : true
      if (!original) {
        // The note it came from is gone here: it is an ordinary note now.
        if (!state.outdated)
          void app.local.mark(copy.id, {}).then(() => act.reloadIds([copy.id]), act.noteError)
        ui.compare.hidden = true
        ui.editor.value = copy.text
        state.editorText = copy.text
        state.editorBase = copy.base
        return
      }
      const words = conflictWords(copy.conflictHere === true, copy.conflictBy)
      $('compare-hint').textContent = words.hint
      $('compare-original-title').textContent = words.noteSide
      $('compare-copy-title').textContent = words.copySide
      $('keep-this').textContent = words.keepCopy
      const parts = lineParts(original.text, copy.text)
      drawParts($('compare-original'), parts, new Set(['same', 'removed']))
      drawParts($('compare-copy'), parts, new Set(['same', 'added']))
      ui.compare.hidden = false
    },

    async resolveConflict(how: Resolution): Promise<void> {
      const copy = state.openId === null ? undefined : state.notes.get(state.openId)
      if (!copy?.conflictOf || act.refusedOutdated('to sort out this conflicted copy')) return
      try {
        const done = await app.notes.resolveConflict(copy.id, how)
        if (done) {
          await act.reloadIds(done.changed)
          await act.openNote(done.open, { save: false, focus: true })
          app.channel?.postMessage({ ids: done.told })
        }
      } catch (error) {
        act.noteError(error)
      }
      void act.flushSoon()
    },
  } satisfies Partial<Actions> & Record<string, unknown>
  return view
}
