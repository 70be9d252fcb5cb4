/**
 * Keyboard shortcuts of the pages: `c` new ticket, `/` search, `g` then `i` the inbox, `?` the
 * list of shortcuts. None fires while a person types in a field or holds Ctrl, Alt or Meta,
 * so typing "c" in a comment is a "c".
 */

export type ShortcutAction = 'new-ticket' | 'search' | 'inbox' | 'help'

export interface KeyInput {
  key: string
  ctrlKey: boolean
  altKey: boolean
  metaKey: boolean
  /** True when the key goes to a text field, a select or an editable element. */
  typing: boolean
  /** Milliseconds, from the event's time stamp. */
  time: number
}

/** How long `g` waits for its second key. */
export const SEQUENCE_MS = 1500

/** The shortcuts as the help lists them. */
export const SHORTCUTS: readonly { keys: string; does: string }[] = [
  { keys: 'c', does: 'New ticket' },
  { keys: '/', does: 'Search tickets' },
  { keys: 'g i', does: 'Go to the inbox' },
  { keys: '?', does: 'Show these shortcuts' },
]

export function createShortcuts(): { key(input: KeyInput): ShortcutAction | null } {
  let pendingG: number | null = null
  return {
    key(input) {
      if (input.typing || input.ctrlKey || input.altKey || input.metaKey) {
        pendingG = null
        return null
      }
      const afterG = pendingG !== null && input.time - pendingG <= SEQUENCE_MS
      pendingG = null
      if (afterG && input.key === 'i') return 'inbox'
      switch (input.key) {
        case 'g':
          pendingG = input.time
          return null
        case 'c':
          return 'new-ticket'
        case '/':
          return 'search'
        case '?':
          return 'help'
        default:
          return null
      }
    },
  }
}

/** True when a key pressed with `target` focused is typing: text fields, selects, editable text. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (target instanceof HTMLInputElement)
    return !['button', 'submit', 'reset', 'checkbox', 'radio'].includes(target.type)
  return false
}
