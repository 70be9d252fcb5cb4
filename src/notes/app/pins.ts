/**
 * Pins follow the person to every device (docs/notes-app.md, "Write, Read and Pin"): a Pin or
 * Unpin is kept in this browser at once (note-prefs.ts, so it holds offline and across reloads),
 * waits in localStorage until the server has it (`POST /api/notes/pins`, with the device's time:
 * the later choice of a note wins), and each sync takes the server's pins, the choices still
 * waiting laid over them. A browser that pinned before pins were kept on the server sends its
 * pins once, as the oldest choices, so they never undo a choice made elsewhere.
 *
 * @module
 */
import type { App } from './app.ts'

/** A Pin or Unpin not yet taken by the server. */
interface Choice {
  id: string
  pinned: boolean
  at: number
}

export function createPinSync(app: App) {
  const { state, act } = app
  const waitingKey = `notes-pins-waiting-${app.userId}`
  const sentKey = `notes-pins-sent-${app.userId}`

  function waiting(): Choice[] {
    try {
      const kept: unknown = JSON.parse(localStorage.getItem(waitingKey) ?? '[]')
      return Array.isArray(kept) ? (kept as Choice[]) : []
    } catch {
      return []
    }
  }

  function keep(choices: readonly Choice[]): void {
    try {
      localStorage.setItem(waitingKey, JSON.stringify(choices))
    } catch {
      // A full storage keeps the choice in this browser only, until a later one is kept.
    }
  }

  function wait(choice: Choice): void {
    keep([...waiting().filter((c) => c.id !== choice.id), choice])
  }

  return {
    /** Pins or unpins note `id` here at once, and queues the choice for the server. */
    choosePin(id: string, pinned: boolean): void {
      app.prefs.set('pinned', id, pinned)
      wait({ id, pinned, at: Date.now() })
    },

    /** Sends the waiting choices, then takes the server's pins (the waiting ones laid over). */
    async syncPins(): Promise<void> {
      if (localStorage.getItem(sentKey) === null) {
        for (const id of app.prefs.all('pinned'))
          if (!waiting().some((c) => c.id === id)) wait({ id, pinned: true, at: 1 })
        localStorage.setItem(sentKey, '1')
      }
      for (const choice of waiting()) {
        const answer = await app.send('POST', '/api/notes/pins', {
          op: choice.pinned ? 'pin' : 'unpin',
          id: choice.id,
          at: choice.at,
        })
        if (answer === null || answer.status >= 500 || answer.status === 429) return
        if (answer.status === 401) return
        // Taken (or refused for good, a 400): it waits no more; a newer choice made meanwhile stays.
        keep(waiting().filter((c) => c.id !== choice.id || c.at !== choice.at))
      }
      const answer = await app.send('GET', '/api/notes/pins')
      if (answer?.status !== 200) return
      const pinned = new Set(answer.body.pins as string[])
      for (const choice of waiting())
        if (choice.pinned) pinned.add(choice.id)
        else pinned.delete(choice.id)
      const here = app.prefs.all('pinned')
      const changed = pinned.size !== here.size || [...pinned].some((id) => !here.has(id))
      if (!changed) return
      for (const id of [...here]) if (!pinned.has(id)) app.prefs.set('pinned', id, false)
      for (const id of pinned) if (!here.has(id)) app.prefs.set('pinned', id, true)
      state.pinned = app.prefs.all('pinned')
      act.sortAndDraw()
      if (state.openId !== null) act.showMode()
    },
  }
}
