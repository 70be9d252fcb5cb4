/**
 * What the ticket pages and their script say in their own words (the API's refusal messages
 * are in src/tickets/rules/messages.ts): before a form is sent, for the API's body refusals
 * (src/tickets/app/api.ts, `readable`), on the 404 pages and after joining a project.
 */
import { BULK_MAX } from '../rules/organise.ts'

// Said by the pages before sending, next to the field (the API answers a blank field as a missing one)
export const SUBJECT_BLANK = 'Write a subject: it is what the ticket is called in every list.'
export const COMMENT_BLANK = 'Write something before sending the comment.'
export const TITLE_BLANK = 'Give the project a title.'
// The pages' words for the API's body refusals (src/tickets/app/api.ts, `readable`)
export const fillIn = (what: string) => `Fill in ${what}.`
export const canBeAtMost = (what: string, max: number) =>
  `${capitalised(what)} can be at most ${max.toLocaleString('en')} characters.`
/** Said at a text field as soon as it is over its limit, before anything is sent. */
export const overLimit = (what: string, length: number, max: number) =>
  `${capitalised(what)} is ${length.toLocaleString('en')} characters; it can be at most ${max.toLocaleString('en')}. Shorten it before saving.`
/** The 404 pages' words. */
export const noTicketHere = (slug: string, number: string) =>
  `There is no ticket ${slug}#${number}. Check the number, or find it from the project's list.`
export const noProjectHere = (slug: string) =>
  `There is no project at /${slug}. Check the address, or pick a project from the list.`
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
/** The welcome on a project's page after joining it through an invite. */
export const youJoined = (title: string, role: 'use' | 'edit' | 'admin') =>
  `You joined ${title} as ${role}. ${ROLE_CAN[role]}`
const ROLE_CAN = {
  use: 'You can write tickets, comment on them and change their state.',
  edit: 'You can write tickets, comment, change their state, and assign, edit and relate them.',
  admin: "You can do everything members do, and change the project's settings and members.",
} as const
/** The pages' words while attaching files (src/tickets/app/attach.ts). */
export const UPLOAD_UNREACHABLE =
  'Could not reach the server, so the file was not attached. Try again.'
export const STILL_UPLOADING = 'Files are still uploading: send this once they are done.'
export const fileOverLimit = (name: string, size: string, maxMb: number) =>
  `${name} is ${size}: a file may be at most ${maxMb} MB.`
/**
 * The bulk bar's **Select all N matching**, or, past {@link BULK_MAX} (what one bulk change may
 * change), why not; `tooMany` says which. The page writes it for a one-page list, the script once
 * it has asked for the count of a longer one.
 */
export function selectAllWords(matching: { count: number; more: boolean }): {
  text: string
  tooMany: boolean
} {
  const tooMany = matching.more || matching.count > BULK_MAX
  return {
    text: tooMany
      ? `More than ${BULK_MAX.toLocaleString('en-US')} match: narrow the search to change them all`
      : `Select all ${matching.count.toLocaleString('en-US')} matching`,
    tooMany,
  }
}
