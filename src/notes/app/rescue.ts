/**
 * The editor's last words of a closing page. A page being closed or reloaded may end before an
 * IndexedDB write started in `pagehide` finishes; localStorage is written at once, so the text
 * waits there (under the key of its user) until the next start puts it into the copy.
 *
 * @module
 */
import type { Local } from './local.ts'

/** What a closing page kept: the note, its text, when, and what the editor started from. */
export interface Rescued {
  id: string
  text: string
  at: number
  base: number
  /** Missing from what an older version of the app kept. */
  from?: string
}

/** The part of `localStorage` the rescue uses. */
export type RescueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

function keyOf(userId: string): string {
  return `notes-rescue-${userId}`
}

/** Keeps `rescued` for the next start; false when the storage is full. */
export function keepRescue(
  userId: string,
  rescued: Rescued,
  storage: RescueStorage = localStorage,
): boolean {
  try {
    storage.setItem(keyOf(userId), JSON.stringify(rescued))
    return true
  } catch {
    return false
  }
}

export function forgetRescue(userId: string, storage: RescueStorage = localStorage): void {
  try {
    storage.removeItem(keyOf(userId))
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/** Puts what a closing page kept into the copy (unless the copy has that text already), then forgets it. */
export async function applyRescue(
  local: Local,
  userId: string,
  storage: RescueStorage = localStorage,
): Promise<void> {
  let kept: Rescued | null
  try {
    kept = JSON.parse(storage.getItem(keyOf(userId)) ?? 'null')
  } catch {
    kept = null
  }
  if (kept === null || typeof kept.id !== 'string' || typeof kept.text !== 'string') return
  const note = await local.get(kept.id)
  if (note?.text !== kept.text)
    await local.edit(kept.id, kept.text, kept.at, {
      base: kept.base,
      ...(typeof kept.from === 'string' ? { text: kept.from } : {}),
    })
  forgetRescue(userId, storage)
}
