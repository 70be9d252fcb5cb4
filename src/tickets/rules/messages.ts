/**
 * The message texts of the ticket service, kept in one place (the same name as the notes
 * service's): docs/tickets-api.md, docs/connect-apps.md and docs/live-events.md quote them word
 * for word. The search language's texts live with its parser (`query.ts`), which the browser
 * script shares.
 */

/** A limit on length, in the API's and the importer's wording: `'subject' is at most 500 characters`. */
export const isAtMost = (what: string, max: number) => `${what} is at most ${max} characters`
/** A limit on length, in the connect flow's and the search's wording: `state must be at most 500 characters`. */
export const mustBeAtMost = (what: string, max: number) => `${what} must be at most ${max} characters`

export const NO_SUCH_TICKET = 'no such ticket'
export const NO_SUCH_PROJECT = 'no such project'
export const NO_SUCH_TOKEN = 'no such token'

/** The pages of the ticket lists (docs/tickets-api.md, "Pages: `limit` and `after`"): the notes list's words. */
export const BAD_LIMIT = "'limit' must be a whole number from 1 to 1000"
export const BAD_AFTER = "'after' must be a cursor from a 'next' address of this list"

export const TOKEN_NEEDED = 'a token is needed'
export const BAD_TOKEN = 'bad or revoked token'
export const USER_TOKEN_NEEDED = 'a user token is needed'
export const KEY_OTHER_PROJECT = "this project key belongs to another project"
export const KEY_PERSON_GONE = 'the person who connected this app is no longer a member of this project'

export const AUTHOR_REFUSED = "'author' is not accepted: the author is the token's user"
export const unknownField = (name: string) => `unknown field '${name}'`
export const fieldRequired = (name: string) => `'${name}' is required`
export const fieldNotString = (name: string) => `'${name}' must be a string`
export const fieldHasNul = (name: string) => `'${name}' cannot contain the character U+0000`
export const fieldHasSurrogate = (name: string) => `'${name}' must be valid Unicode (it has a lone surrogate)`

export const NOT_MEMBER = 'you are not a member of this project'
export const NEEDS_EDIT = 'this needs role edit or admin'
export const NEEDS_ADMIN = 'this needs role admin'

export const unknownState = (state: string) => `unknown state '${state}'`
export const unknownRole = (role: string) => `unknown role '${role}': use one of use, edit, admin`
export const noSuchUser = (ref: string) => `no user '${ref}' has logged in here`
export const noSuchMember = (ref: string) => `'${ref}' is not a member of this project`
export const ambiguousUser = (ref: string) => `'${ref}' names more than one user: use the user id`

export const LOGIN_FAILED = 'Login failed'
export const INVITE_FAILED = 'Invite failed'
export const NO_LOGIN_CODE = 'idp sent no login code'
export const USER_NOT_STORED = 'could not store the user'

export const CONNECT = 'Connect'
export const GET_ONLY = 'GET only'
export const lengthBetween = (name: string, min: number, max: number) => `${name} must be ${min} to ${max} characters`
/** A JSON field over its length limit. */
export const fieldTooLong = (name: string, max: number) => isAtMost(`'${name}'`, max)
export const givenTwice = (name: string) => `${name} is given more than once`
export const hasControl = (name: string) => `${name} must not contain control characters`
export const BAD_RETURN = 'return must be an absolute https URL (http only for localhost, 127.0.0.1 or [::1])'
export const RETURN_HAS_EXTRA = 'return must not have a user name, a password or a #fragment'
export const RETURN_HAS_PARAMS = 'return must not already carry code or state in its query'
export const NO_SUCH_REQUEST = 'this connect request is unknown, used or expired: start again from the app'
export const PROJECT_OR_TITLE = "give exactly one of 'project' or 'title'"
export const BAD_CODE = 'unknown, used or expired code'
export const NO_SUCH_CONNECTION = 'no such connection in this project'
export const GET_OR_HEAD_ONLY = 'GET only'
export const POST_ONLY = 'POST only'
export const NOT_FOUND = 'not found'

// Projects and members
export const LAST_ADMIN_DEMOTED = 'the last admin cannot be demoted'
export const LAST_ADMIN_REMOVED = 'the last admin cannot be removed'
export const SLUG_FORMAT = "a slug is 1 to 40 characters of a-z, 0-9 and single '-'"
export const slugReserved = (slug: string) => `'${slug}' is reserved`
export const slugTaken = (slug: string) => `'${slug}' is taken`

// Invites
export const BAD_USES = "'uses' must be a whole number from 1 to 1000"
export const BAD_DAYS = "'days' must be a whole number from 1 to 90"
export const BAD_EMAIL = "'email' is not a mail address"
export const NO_SUCH_INVITE = 'no such invite'
export const INVITE_USED_UP = 'this invite has been used up'
export const INVITE_EXPIRED = 'this invite has expired'

// Changes
export const alreadyInState = (state: string) => `the ticket is already ${state}`
export const alreadyAssignedTo = (name: string) => `the ticket is already assigned to ${name}`
export const ALREADY_UNASSIGNED = 'the ticket is already unassigned'
export const SUBJECT_OR_SUMMARY = "give 'subject' or 'summary' to change"
export const SUBJECT_EMPTY = "'subject' cannot be empty"
export const NOTHING_CHANGED = 'nothing changed: the ticket already reads so'
/** An edit whose `If-Match` names an older version of the ticket (412). */
export const EDIT_STALE = 'the ticket has changed since you read it: read it again and merge your edit'

// Relations
export const hasNoParent = (ticket: string) => `${ticket} has no parent`
export const OWN_PARENT = 'a ticket cannot be its own parent'
export const alreadyParent = (parent: string, ticket: string) => `${parent} is already the parent of ${ticket}`
export const ownAncestor = (parent: string, ticket: string) => `${parent} is under ${ticket}: a ticket cannot be its own ancestor`
export const notBlockedBy = (ticket: string, blocker: string) => `${ticket} is not blocked by ${blocker}`
export const BLOCKS_ITSELF = 'a ticket cannot block itself'
export const alreadyBlockedBy = (ticket: string, blocker: string) => `${ticket} is already blocked by ${blocker}`
export const blockedByCycle = (blocker: string, ticket: string) => `${blocker} already waits for ${ticket}: that would make a blocked-by cycle`
/** A relation's ticket given as text that is no ticket reference at all (a missing ticket is `no such ticket`). */
export const notATicket = (text: string) => `'${text}' does not name a ticket: give its number (12 or #12), web#12, or paste its address`
// Said by the pages before sending, next to the field (the API answers a blank field as a missing one)
export const SUBJECT_BLANK = 'Write a subject: it is what the ticket is called in every list.'
export const COMMENT_BLANK = 'Write something before sending the comment.'
export const TITLE_BLANK = 'Give the project a title.'
// The pages' words for the API's body refusals (src/tickets/app/api.ts, `readable`)
export const fillIn = (what: string) => `Fill in ${what}.`
export const canBeAtMost = (what: string, max: number) => `${capitalised(what)} can be at most ${max.toLocaleString('en')} characters.`
/** Said at a text field as soon as it is over its limit, before anything is sent. */
export const overLimit = (what: string, length: number, max: number) =>
  `${capitalised(what)} is ${length.toLocaleString('en')} characters; it can be at most ${max.toLocaleString('en')}. Shorten it before saving.`
/** The 404 pages' words. */
export const noTicketHere = (slug: string, number: string) => `There is no ticket ${slug}#${number}. Check the number, or find it from the project's list.`
export const noProjectHere = (slug: string) => `There is no project at /${slug}. Check the address, or pick a project from the list.`
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
/** The welcome on a project's page after joining it through an invite. */
export const youJoined = (title: string, role: 'use' | 'edit' | 'admin') => `You joined ${title} as ${role}. ${ROLE_CAN[role]}`
const ROLE_CAN = {
  use: 'You can write tickets, comment on them and change their state.',
  edit: 'You can write tickets, comment, change their state, and assign, edit and relate them.',
  admin: 'You can do everything members do, and change the project\'s settings and members.',
} as const
export const ADD_OR_REMOVE = "give exactly one of 'add' or 'remove'"

// Webhooks (docs/webhooks.md)
export const BAD_WEBHOOK_URL = "'url' must be an absolute http or https URL without a user name, a password or a #fragment, at most 2000 characters"
export const refusedWebhookUrl = (reason: string) => `'url' cannot be used: ${reason}`
export const unknownWebhookKind = (kind: string) => `unknown event kind '${kind}'`
export const EVENTS_NOT_LIST = "'events' must be a list of event kinds"
export const BAD_ACTIVE = "'active' must be 'true' or 'false'"
export const tooManyWebhooks = (max: number) => `a project has at most ${max} webhooks: remove one first`
export const NO_SUCH_WEBHOOK = 'no such webhook in this project'
export const NO_SUCH_DELIVERY = 'no such delivery of this webhook'
export const ACTIVE_OR_EVENTS = "give 'active' or 'events' to change"

// Live events
export const BAD_CURSOR = "'after' must be a cursor from an earlier answer"
export const TOO_MANY_WAITING = 'too many waiting requests'

// The importer (docs/tickets-api.md, "Importing tickets"); `at` is the place in the file.
export const IMPORT_NOT_OBJECT = 'the file must hold a JSON object with project and tickets'
export const IMPORT_NO_SLUG = 'project.slug is required'
export const IMPORT_TICKETS_NOT_LIST = 'tickets must be a list'
export const IMPORT_PARENT_CYCLE = 'the parents in the file make a cycle'
export const IMPORT_NO_PROJECT_ID = 'could not make a project id; run the import again'
export const mustBeString = (at: string) => `${at} must be a string`
export const isRequired = (at: string) => `${at} is required`
export const mustBeObject = (at: string) => `${at} must be an object`
export const mustBeList = (at: string) => `${at} must be a list`
export const badOldNumber = (at: string) => `${at}.number must be a whole number from 1`
export const numberTwice = (at: string, n: number) => `${at}.number ${n} appears twice`
export const badImportState = (at: string) => `${at}.state must be one of open, doing, review, done, dropped`
export const badTime = (at: string) => `${at}.created must be milliseconds since 1970 or an ISO 8601 time`
export const badParent = (at: string) => `${at}.parent must be an old ticket number`
export const badBlockedBy = (at: string) => `${at}.blockedBy must be a list of old ticket numbers`
export const relatedToItself = (at: string) => `${at} cannot be related to itself`
export const otherProjectsNumber = (n: number) => `old number ${n} already belongs to a ticket of another project`
export const unknownOldNumber = (at: number, n: number) => `ticket ${at} names old number ${n}, which is neither in the file nor imported`
export const importNeedsAdmin = (slug: string) => `project '${slug}' does not exist: give project.admin, a person who has logged in, to create it`
/** Another check's refusal, said of a place in the file. */
export const atPlace = (at: string, error: string) => `${at}: ${error}`
export const notLoggedInHere = (name: string) => `'${name}' has not logged in here: kept as a name`

/** Files (docs/tickets-api.md, "Files"). Sizes in MB of 1,048,576 bytes, as the settings count them. */
export const fileTooLarge = (maxMb: number) => `a file may be at most ${maxMb} MB (UPLOAD_MAX_MB)`
export const projectFilesFull = (useMb: string, maxMb: number) =>
  `this project's files use ${useMb} MB of its ${maxMb} MB (PROJECT_FILES_MAX_MB): remove unused files or ask for a higher limit`
export const FILE_EMPTY = 'the file is empty'
export const NO_SUCH_FILE = 'no such file'
/** The pages' words while attaching files (src/tickets/app/attach.ts). */
export const UPLOAD_UNREACHABLE = 'Could not reach the server, so the file was not attached. Try again.'
export const STILL_UPLOADING = 'Files are still uploading: send this once they are done.'
