/**
 * "Import notes": files or a folder picked, read in the page (import.ts), each note found saved
 * like a typed note (into the copy first, then sent by the queue, so offline too), and what was
 * passed over said with why.
 *
 * @module
 */
import { $, type App } from './app.ts'
import { importFiles, type PickedFile } from './import.ts'

/** The longest text the server takes (docs/notes-api.md). */
const MAX_TEXT = 1_000_000

export function createImportView(app: App) {
  const { ui, state, act } = app

  function say(lines: string[], skipped: { path: string; why: string }[]): void {
    const out = $('import-result')
    const parts: Node[] = lines.map((line) => {
      const p = document.createElement('p')
      p.textContent = line
      return p
    })
    if (skipped.length > 0) {
      const list = document.createElement('ul')
      list.className = 'skipped'
      for (const s of skipped) {
        const li = document.createElement('li')
        const name = document.createElement('code')
        name.textContent = s.path
        li.append(name, `: ${s.why}`)
        list.append(li)
      }
      parts.push(list)
    }
    out.replaceChildren(...parts)
  }

  async function importPicked(input: HTMLInputElement): Promise<void> {
    const files = [...(input.files ?? [])]
    input.value = ''
    if (files.length === 0 || act.refusedOutdated('to import notes')) return
    say(['Reading the files…'], [])
    let picked: PickedFile[]
    try {
      picked = await Promise.all(
        files.map(async (f) => ({
          path: f.webkitRelativePath || f.name,
          bytes: new Uint8Array(await f.arrayBuffer()),
        })),
      )
    } catch (error) {
      say(
        [
          `The files could not be read (${error instanceof Error ? error.message : String(error)}).`,
        ],
        [],
      )
      return
    }
    const found = importFiles(picked)
    const skipped = [...found.skipped]
    const texts: string[] = []
    for (const note of found.notes) {
      if (note.text.length > MAX_TEXT)
        skipped.push({
          path: note.text.split('\n', 1)[0]!.slice(0, 60),
          why: 'longer than 1,000,000 characters',
        })
      else texts.push(note.text)
    }
    let ids: string[] = []
    try {
      ids = await app.notes.importNotes(texts)
    } catch (error) {
      act.noteError(error)
    }
    act.sortAndDraw()
    app.channel?.postMessage({ ids })
    await act.refreshStatus()
    void act.flushSoon()
    const imported =
      ids.length === 0
        ? 'No note was imported.'
        : `Imported ${ids.length} ${ids.length === 1 ? 'note' : 'notes'}: they are in the list, and sync like notes typed here.`
    say(
      skipped.length === 0
        ? [imported]
        : [
            imported,
            `${skipped.length} ${skipped.length === 1 ? 'file was' : 'files were'} passed over:`,
          ],
      skipped,
    )
  }

  const view = {
    async showImport(): Promise<void> {
      await act.saveNow()
      if (state.openId !== null) act.closeNote()
      act.closeTrash()
      ui.app.dataset.view = 'note'
      ui.placeholder.hidden = true
      ui.editor.hidden = true
      ui.importPanel.hidden = false
      $('show-import').setAttribute('aria-current', 'true')
      $('import-result').replaceChildren()
      $('import-title').focus()
    },

    closeImport(): void {
      if (ui.importPanel.hidden) return
      ui.importPanel.hidden = true
      $('show-import').removeAttribute('aria-current')
      ui.editor.hidden = false
      if (state.openId === null) {
        ui.placeholder.hidden = false
        ui.app.dataset.view = 'list'
      }
    },

    wireImport(): void {
      $('show-import').addEventListener('click', () => void view.showImport())
      $('import-close').addEventListener('click', () => {
        view.closeImport()
        $('show-import').focus()
      })
      for (const id of ['import-files', 'import-folder']) {
        const input = $<HTMLInputElement>(id)
        input.addEventListener('change', () => void importPicked(input))
      }
    },
  }
  return view
}
