/**
 * The app's requests to its service (same origin, JSON): `createSend(state)` gives the `Send`
 * the sync and the views use, and keeps `state.unreachable` true while the last one failed on
 * the network.
 *
 * @module
 */
import type { AppState } from './controller.ts'
import type { RequestWatch, Send } from './sync.ts'

export function createSend(state: AppState): Send {
  return async (method, path, body, watch) => {
    try {
      const res = await fetch(path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
        cache: 'no-store',
        ...(watch ? { signal: watch.signal } : {}),
      })
      state.unreachable = false
      watch?.alive()
      const text = watch && res.body ? await readWatched(res.body, watch) : await res.text()
      let parsed: unknown = null
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = null
      }
      return { status: res.status, body: parsed }
    } catch {
      state.unreachable = true
      return null
    }
  }
}

/** A body as text, telling `watch` of each piece as it arrives (the sync's time limit is for silence). */
async function readWatched(body: ReadableStream<Uint8Array>, watch: RequestWatch): Promise<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    watch.alive()
    text += decoder.decode(value, { stream: true })
  }
}
