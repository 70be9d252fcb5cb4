/**
 * What acts on the whole account or app: exporting every note, signing out (which deletes this
 * browser's copy), and the service worker's offer of a new version.
 *
 * @module
 */
import { $, type App } from './app.ts'
import { exportZip } from './export.ts'

export function createAccountView(app: App) {
  const { ui, act } = app

  async function exportAll(): Promise<void> {
    // The copy belongs to the newer version now, and the notes in memory may be behind it.
    if (act.refusedOutdated('to export your notes')) return
    await act.saveNow()
    const notes = (await app.local.all()).sort((a, b) => b.edited - a.edited)
    const zip = exportZip(notes, Date.now())
    const url = URL.createObjectURL(new Blob([zip as BlobPart], { type: 'application/zip' }))
    const a = document.createElement('a')
    a.href = url
    a.download = `notes-${new Date().toISOString().slice(0, 10)}.zip`
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }

  async function signOut(): Promise<void> {
    // This tab can no longer see whether edits are waiting, so it never clears the copy.
    if (act.refusedOutdated('to sign out')) return
    await act.saveNow()
    if (navigator.onLine) await app.sync.flush().catch(() => false)
    const waiting = await app.local.waiting()
    if (
      waiting > 0 &&
      !confirm(
        `${waiting} ${waiting === 1 ? 'change has' : 'changes have'} not reached the server yet, and signing out deletes this browser's copy. Sign out anyway and lose ${waiting === 1 ? 'it' : 'them'}?`,
      )
    )
      return
    const answer = await app.send('POST', '/logout', {})
    if (answer === null || answer.status !== 200) {
      app.state.problem = 'Signing out needs a connection'
      await act.refreshStatus()
      return
    }
    app.channel?.postMessage({ signedOut: true })
    await app.local.destroy().catch(() => {})
    app.prefs.forget()
    localStorage.removeItem(`notes-pins-waiting-${app.userId}`)
    localStorage.removeItem(`notes-pins-sent-${app.userId}`)
    if ('caches' in window) for (const key of await caches.keys()) await caches.delete(key)
    location.assign('/')
  }

  return {
    /** "Export all notes" and "Sign out", also wired in a tab that could not open the copy. */
    wireAccount(): void {
      $('export').addEventListener('click', () => void exportAll())
      $('sign-out').addEventListener('click', () => void signOut())
      // The person's menu closes on a click elsewhere and on Escape, as menus do.
      const menu = document.querySelector<HTMLDetailsElement>('details.person-menu')
      document.addEventListener('click', (e) => {
        if (menu?.open && !menu.contains(e.target as Node)) menu.open = false
      })
      menu?.addEventListener('keydown', (e) => {
        if (e.key === 'Escape' && menu.open) {
          menu.open = false
          menu.querySelector('summary')?.focus()
        }
      })
      // The notice of a switched sign-in offers its own "Sign out" (docs/core.md, "Login CSRF").
      document.getElementById('switch-sign-out')?.addEventListener('click', () => void signOut())
    },

    registerWorker(): void {
      if (!('serviceWorker' in navigator)) return
      let reloadAsked = false
      navigator.serviceWorker
        .register('/sw.js', { scope: '/' })
        .then((reg) => {
          // A worker waiting while another controls the page is a new version: offer it. (The
          // first worker of all takes over by itself and needs no reload.)
          const offer = () => {
            if (reg.waiting && navigator.serviceWorker.controller) ui.update.hidden = false
          }
          offer()
          reg.addEventListener('updatefound', () => {
            reg.installing?.addEventListener('statechange', offer)
          })
        })
        .catch(() => {})
      navigator.serviceWorker.addEventListener('controllerchange', () => {
        if (reloadAsked) location.reload()
      })
      $('update-reload').addEventListener('click', async () => {
        // Queued edits are in IndexedDB and survive the reload; the editor's text is written first.
        await act.saveNow()
        reloadAsked = true
        const reg = await navigator.serviceWorker.getRegistration()
        if (reg?.waiting) {
          reg.waiting.postMessage('skip-waiting')
          // The person asked for the new version: reload even if the switch is slow to be told.
          setTimeout(() => location.reload(), 3_000)
        } else location.reload()
      })
    },
  }
}
