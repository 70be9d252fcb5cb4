/**
 * `@` suggestions in the text areas of a project's pages (docs/notifications.md, "Mentions"): as
 * the person types `@` and the start of a name, a list box under the text area offers the
 * project's members whose name starts so (or has a word that does); Arrow keys move through it,
 * Enter or Tab or a click puts `@name ` in the text, Escape closes it. The members are read once
 * a page, from `GET /api/projects/<slug>`. What the text says is still what is typed: the list
 * only helps.
 */
import { mentionKey } from '../rules/mentions.ts'
import { attachListbox } from './listbox.ts'

export interface Member {
  id: string
  name: string
}

/** Suggestions the list shows at most. */
export const SHOWN = 8

/**
 * The mention being typed just before the caret: where its `@` is and what follows it, or null
 * when the caret is not in one (the `@` must start the text or follow a character that is not a
 * letter, digit or `_`, as a mention's does).
 */
export function mentionAt(text: string, caret: number): { start: number; typed: string } | null {
  const before = text.slice(0, caret)
  const match = /(^|[^\p{L}\p{N}_])@([^\s@]{0,40})$/u.exec(before)
  if (!match) return null
  const typed = match[2]!
  return { start: before.length - typed.length - 1, typed }
}

/** The members `typed` may mean: a name or a word of it starts so (in any case), names first. */
export function suggestions(members: readonly Member[], typed: string): Member[] {
  const t = typed.toLowerCase()
  const starts = members.filter(
    (m) => m.name.toLowerCase().startsWith(t) || mentionKey(m.name).toLowerCase().startsWith(t),
  )
  const words = members.filter(
    (m) =>
      !starts.includes(m) &&
      m.name
        .toLowerCase()
        .split(/\s+/)
        .some((w) => w.startsWith(t)),
  )
  return [...starts, ...words].slice(0, SHOWN)
}

/** What a chosen member is written as: the name, without its spaces when it has some. */
export function mentionText(member: Member): string {
  return `@${mentionKey(member.name)} `
}

/** The members of each project, read once a page. */
const membersOf = new Map<string, Promise<Member[]>>()

function loadMembers(slug: string): Promise<Member[]> {
  let loaded = membersOf.get(slug)
  if (!loaded) {
    loaded = fetch(`/api/projects/${encodeURIComponent(slug)}`, {
      headers: { accept: 'application/json' },
    })
      .then(async (res) =>
        res.ok ? ((await res.json()) as { members?: { user: Member }[] }).members : [],
      )
      .then((members) => (members ?? []).map((m) => ({ id: m.user.id, name: m.user.name })))
      .catch(() => [])
    membersOf.set(slug, loaded)
  }
  return loaded
}

let made = 0

/** Makes `area` suggest the members of project `slug` after `@`. */
export function attachMentions(area: HTMLTextAreaElement, slug: string): void {
  const list = document.createElement('ul')
  list.id = `mentions-${++made}`
  list.className = 'picker-list mention-list'
  list.setAttribute('role', 'listbox')
  list.setAttribute('aria-label', 'People to mention')
  list.hidden = true
  area.insertAdjacentElement('afterend', list)
  area.setAttribute('aria-autocomplete', 'list')
  area.setAttribute('aria-controls', list.id)
  let asked = 0
  const box = attachListbox<Member>(area, list, {
    option(member, li) {
      li.textContent = member.name
    },
    choose(member) {
      const at = mentionAt(area.value, area.selectionStart)
      if (!at) return
      area.setRangeText(mentionText(member), at.start, area.selectionStart, 'end')
      area.dispatchEvent(new Event('input', { bubbles: true }))
      area.focus()
    },
    choosesOn: (event) =>
      (event.key === 'Enter' && !event.ctrlKey && !event.metaKey) || event.key === 'Tab',
  })
  const update = async () => {
    const at =
      area.selectionStart === area.selectionEnd ? mentionAt(area.value, area.selectionStart) : null
    const mine = ++asked
    if (!at) return box.show([])
    const members = await loadMembers(slug)
    if (mine !== asked) return
    box.show(suggestions(members, at.typed), 0)
  }

  area.addEventListener('input', () => void update())
}
