/**
 * A history event in words, as the Markdown answers and the ticket page both say it:
 * "commented", "changed the state from open to doing", "alice unassigned bob" (after the
 * actor's name), "set the parent to web#1", "added the label \"bug\"", "set the due date to 2026-12-24". One wording, so the terminal and the browser agree.
 */
import type { TicketEvent } from '../rules/ticket-event.ts'

/**
 * What the actor did, without the actor: `words`, then the related ticket's reference when the
 * event names one (a page links it). The sentence is `words` followed by ` ref`.
 */
export interface EventWords {
  words: string
  ref: string | null
}

/** The words of an event; a comment's or state change's text is not part of them. */
export function eventWords(e: TicketEvent): EventWords {
  switch (e.kind) {
    case 'comment':
      return { words: 'commented', ref: null }
    case 'state':
      return { words: `changed the state from ${String(e.from)} to ${String(e.to)}`, ref: null }
    case 'assign':
      return { words: assignWords(e.from, e.to), ref: null }
    case 'edit':
      return {
        words: `edited ${['subject', 'summary'].filter((f) => f in e).join(' and ')}`,
        ref: null,
      }
    case 'link':
      return linkWords(e)
    case 'label':
      return {
        words: `${e.action === 'removed' ? 'removed the label' : 'added the label'} ${quoted(e.label)}`,
        ref: null,
      }
    case 'milestone':
      return { words: changeWords('milestone', e.from, e.to, quoted), ref: null }
    case 'due':
      return { words: changeWords('due date', e.from, e.to, String), ref: null }
  }
}

/** The words and reference as one sentence: `set the parent to web#1`. */
export function eventSentence(e: TicketEvent): string {
  const { words, ref } = eventWords(e)
  return ref === null ? words : `${words} ${ref}`
}

function assignWords(from: unknown, to: unknown): string {
  const name = (u: unknown) => oneLine((u as { name: string }).name)
  if (to === null) return `unassigned ${from ? name(from) : 'nobody'}`
  return from ? `reassigned from ${name(from)} to ${name(to)}` : `assigned ${name(to)}`
}

/** A name or title in double quotes, on one line: `"needs review"`. */
function quoted(value: unknown): string {
  return `"${oneLine(String(value))}"`
}

/** `set the milestone to "v1.0"`, `changed the due date from 2026-12-01 to 2026-12-24`, `removed the milestone "v1.0"`. */
function changeWords(what: string, from: unknown, to: unknown, say: (v: unknown) => string) {
  if (to === null || to === undefined)
    return `removed the ${what}${from === null || from === undefined ? '' : ` ${say(from)}`}`
  if (from === null || from === undefined) return `set the ${what} to ${say(to)}`
  return `changed the ${what} from ${say(from)} to ${say(to)}`
}

function linkWords(e: TicketEvent): EventWords {
  const ref = (e.ticket as { ref: string } | undefined)?.ref ?? '?'
  if (e.relation === 'parent')
    return { words: e.action === 'removed' ? 'removed the parent' : 'set the parent to', ref }
  return { words: e.action === 'removed' ? 'removed blocker' : 'marked it blocked by', ref }
}

/** Newlines and runs of white space folded, so one field stays on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
