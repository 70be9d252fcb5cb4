/**
 * `@` suggestions in the text areas of a project's pages (docs/notifications.md, "Mentions"): as
 * the person types `@` and the start of a name, a list box under the text area offers the
 * project's members whose name starts so (or has a word that does); Arrow keys move through it,
 * Enter or Tab or a click puts `@name ` in the text, Escape closes it. The members are read once
 * a page, from `GET /api/projects/<slug>`. What the text says is still what is typed: the list
 * only helps.
 */
import { mentionKey } from '../rules/mentions.ts'

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
  let items: Member[] = []
  let active = 0
  let asked = 0

  const close = () => {
    items = []
    list.hidden = true
    list.replaceChildren()
    area.removeAttribute('aria-activedescendant')
  }
  const draw = () => {
    list.replaceChildren()
    if (items.length === 0) return close()
    items.forEach((m, i) => {
      const li = document.createElement('li')
      li.id = `${list.id}-${i}`
      li.setAttribute('role', 'option')
      li.setAttribute('aria-selected', String(i === active))
      li.textContent = m.name
      li.addEventListener('mousedown', (event) => {
        event.preventDefault()
        choose(i)
      })
      list.append(li)
    })
    list.hidden = false
    area.setAttribute('aria-activedescendant', `${list.id}-${active}`)
  }
  const choose = (i: number) => {
    const member = items[i]
    const at = mentionAt(area.value, area.selectionStart)
    if (!member || !at) return close()
    const text = mentionText(member)
    area.setRangeText(text, at.start, area.selectionStart, 'end')
    area.dispatchEvent(new Event('input', { bubbles: true }))
    close()
    area.focus()
  }
  const update = async () => {
    const at =
      area.selectionStart === area.selectionEnd ? mentionAt(area.value, area.selectionStart) : null
    const mine = ++asked
    if (!at) return close()
    const members = await loadMembers(slug)
    if (mine !== asked) return
    items = suggestions(members, at.typed)
    active = 0
    draw()
  }

  area.addEventListener('input', () => void update())
  area.addEventListener('keydown', (event) => {
    if (list.hidden || items.length === 0) return
    if (event.key === 'Escape') {
      event.preventDefault()
      close()
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      active = (active + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length
      draw()
    } else if ((event.key === 'Enter' && !event.ctrlKey && !event.metaKey) || event.key === 'Tab') {
      event.preventDefault()
      choose(active)
    }
  })
  area.addEventListener('blur', () => close())
}
