/**
 * The message texts of the ticket service, kept in one place (the same name as the notes
 * service's): docs/tickets-api.md, docs/connect-apps.md and docs/live-events.md quote them word
 * for word. The search language's texts live with its parser (`query.ts`), which the browser
 * script shares.
 *
 * A message a refusal answers with is a {@link Reason}: its stable code (src/http/refusal.ts)
 * beside its words; the pages' own words are plain text.
 */
import { reason, type Reason } from '../../http/refusal.ts'

/** A limit on length, in the API's and the importer's wording: `'subject' is at most 500 characters`. */
export const isAtMost = (what: string, max: number) => `${what} is at most ${max} characters`
/** A limit on length, in the connect flow's and the search's wording: `state must be at most 500 characters`. */
export const mustBeAtMost = (what: string, max: number) =>
  `${what} must be at most ${max} characters`

export const NO_SUCH_TICKET = reason('no_such_ticket', 'no such ticket')
export const NO_SUCH_PROJECT = reason('no_such_project', 'no such project')
export const NO_SUCH_TOKEN = reason('no_such_token', 'no such token')

/** The pages of the ticket lists (docs/tickets-api.md, "Pages: `limit` and `after`"): the notes list's words. */
export const BAD_LIMIT = reason('bad_field', "'limit' must be a whole number from 1 to 1000")
export const BAD_AFTER = reason(
  'bad_field',
  "'after' must be a cursor from a 'next' address of this list",
)

export const TOKEN_NEEDED = reason('token_needed', 'a token is needed')
export const BAD_TOKEN = reason('bad_token', 'bad or revoked token')
export const USER_TOKEN_NEEDED = reason('user_token_needed', 'a user token is needed')
export const KEY_OTHER_PROJECT = reason('forbidden', 'this project key belongs to another project')
export const KEY_PERSON_GONE = reason(
  'forbidden',
  'the person who connected this app is no longer a member of this project',
)

export const AUTHOR_REFUSED = reason(
  'unknown_field',
  "'author' is not accepted: the author is the token's user",
)
export const unknownField = (name: string) => reason('unknown_field', `unknown field '${name}'`)
export const fieldRequired = (name: string) => reason('field_required', `'${name}' is required`)
export const fieldNotString = (name: string) => reason('not_a_string', `'${name}' must be a string`)
export const fieldHasNul = (name: string) =>
  reason('bad_text', `'${name}' cannot contain the character U+0000`)
export const fieldHasSurrogate = (name: string) =>
  reason('bad_text', `'${name}' must be valid Unicode (it has a lone surrogate)`)

export const NOT_MEMBER = reason('forbidden', 'you are not a member of this project')
export const NEEDS_EDIT = reason('forbidden', 'this needs role edit or admin')
export const NEEDS_ADMIN = reason('forbidden', 'this needs role admin')

export const unknownState = (state: string) => reason('bad_field', `unknown state '${state}'`)
export const unknownRole = (role: string) =>
  reason('bad_field', `unknown role '${role}': use one of use, edit, admin`)
export const noSuchUser = (ref: string) =>
  reason('no_such_user', `no user '${ref}' has logged in here`)
export const noSuchMember = (ref: string) =>
  reason('no_such_user', `'${ref}' is not a member of this project`)
export const ambiguousUser = (ref: string) =>
  reason('no_such_user', `'${ref}' names more than one user: use the user id`)

export const LOGIN_FAILED = 'Login failed'
export const INVITE_FAILED = 'Invite failed'
export const NO_LOGIN_CODE = reason('login_failed', 'idp sent no login code')
export const USER_NOT_STORED = reason('internal_error', 'could not store the user')

export const CONNECT = 'Connect'
export const GET_ONLY = reason('method_not_allowed', 'GET only')
export const lengthBetween = (name: string, min: number, max: number) =>
  reason('bad_field', `${name} must be ${min} to ${max} characters`)
/** A JSON field over its length limit. */
export const fieldTooLong = (name: string, max: number) =>
  reason('too_long', isAtMost(`'${name}'`, max))
export const givenTwice = (name: string) => reason('bad_field', `${name} is given more than once`)
export const hasControl = (name: string) =>
  reason('bad_field', `${name} must not contain control characters`)
export const BAD_RETURN = reason(
  'bad_field',
  'return must be an absolute https URL (http only for localhost, 127.0.0.1 or [::1])',
)
export const RETURN_HAS_EXTRA = reason(
  'bad_field',
  'return must not have a user name, a password or a #fragment',
)
export const RETURN_HAS_PARAMS = reason(
  'bad_field',
  'return must not already carry code or state in its query',
)
export const NO_SUCH_REQUEST = reason(
  'bad_code',
  'this connect request is unknown, used or expired: start again from the app',
)
export const PROJECT_OR_TITLE = reason('bad_field', "give exactly one of 'project' or 'title'")
export const BAD_CODE = reason('bad_code', 'unknown, used or expired code')
export const NO_SUCH_CONNECTION = reason('no_such_connection', 'no such connection in this project')
export const GET_OR_HEAD_ONLY = reason('method_not_allowed', 'GET only')
export const POST_ONLY = reason('method_not_allowed', 'POST only')
export const NOT_FOUND = reason('not_found', 'not found')

// Projects and members
export const LAST_ADMIN_DEMOTED = reason('last_admin', 'the last admin cannot be demoted')
export const LAST_ADMIN_REMOVED = reason('last_admin', 'the last admin cannot be removed')
export const SLUG_FORMAT = reason(
  'bad_field',
  "a slug is 1 to 40 characters of a-z, 0-9 and single '-'",
)
export const slugReserved = (slug: string) => reason('slug_taken', `'${slug}' is reserved`)
export const slugTaken = (slug: string) => reason('slug_taken', `'${slug}' is taken`)

// Invites
export const BAD_USES = reason('bad_field', "'uses' must be a whole number from 1 to 1000")
export const BAD_DAYS = reason('bad_field', "'days' must be a whole number from 1 to 90")
export const BAD_EMAIL = reason('bad_field', "'email' is not a mail address")
export const NO_SUCH_INVITE = reason('no_such_invite', 'no such invite')
export const INVITE_USED_UP = reason('invite_used_up', 'this invite has been used up')
export const INVITE_EXPIRED = reason('invite_expired', 'this invite has expired')
export const INVITE_REVOKED = reason(
  'invite_revoked',
  'this invite is no longer valid: an admin of the project revoked it',
)

// Changes
export const alreadyInState = (state: string) =>
  reason('already_so', `the ticket is already ${state}`)
export const alreadyAssignedTo = (name: string) =>
  reason('already_so', `the ticket is already assigned to ${name}`)
export const ALREADY_UNASSIGNED = reason('already_so', 'the ticket is already unassigned')
export const SUBJECT_OR_SUMMARY = reason('field_required', "give 'subject' or 'summary' to change")
export const SUBJECT_EMPTY = reason('field_required', "'subject' cannot be empty")
export const NOTHING_CHANGED = reason('already_so', 'nothing changed: the ticket already reads so')
/** An edit whose `If-Match` names an older version of the ticket (412). */
export const EDIT_STALE = reason(
  'edit_conflict',
  'the ticket has changed since you read it: read it again and merge your edit',
)

// Relations
export const hasNoParent = (ticket: string) => reason('bad_relation', `${ticket} has no parent`)
export const OWN_PARENT = reason('bad_relation', 'a ticket cannot be its own parent')
export const alreadyParent = (parent: string, ticket: string) =>
  reason('already_so', `${parent} is already the parent of ${ticket}`)
export const ownAncestor = (parent: string, ticket: string) =>
  reason('bad_relation', `${parent} is under ${ticket}: a ticket cannot be its own ancestor`)
export const notBlockedBy = (ticket: string, blocker: string) =>
  reason('bad_relation', `${ticket} is not blocked by ${blocker}`)
export const BLOCKS_ITSELF = reason('bad_relation', 'a ticket cannot block itself')
export const alreadyBlockedBy = (ticket: string, blocker: string) =>
  reason('already_so', `${ticket} is already blocked by ${blocker}`)
export const blockedByCycle = (blocker: string, ticket: string) =>
  reason(
    'bad_relation',
    `${blocker} already waits for ${ticket}: that would make a blocked-by cycle`,
  )
/** A relation's ticket given as text that is no ticket reference at all (a missing ticket is `no such ticket`). */
export const notATicket = (text: string) =>
  reason(
    'bad_field',
    `'${text}' does not name a ticket: give its number (12 or #12), web#12, or paste its address`,
  )
export const ADD_OR_REMOVE = reason('bad_field', "give exactly one of 'add' or 'remove'")

// Webhooks (docs/webhooks.md)
export const BAD_WEBHOOK_URL = reason(
  'bad_field',
  "'url' must be an absolute http or https URL without a user name, a password or a #fragment, at most 2000 characters",
)
export const refusedWebhookUrl = (why: string) =>
  reason('bad_field', `'url' cannot be used: ${why}`)
export const unknownWebhookKind = (kind: string) =>
  reason('bad_field', `unknown event kind '${kind}'`)
export const EVENTS_NOT_LIST = reason('bad_field', "'events' must be a list of event kinds")
export const BAD_ACTIVE = reason('bad_field', "'active' must be 'true' or 'false'")
export const tooManyWebhooks = (max: number) =>
  reason('too_many', `a project has at most ${max} webhooks: remove one first`)
export const NO_SUCH_WEBHOOK = reason('no_such_webhook', 'no such webhook in this project')
export const NO_SUCH_DELIVERY = reason('no_such_delivery', 'no such delivery of this webhook')
export const ACTIVE_OR_EVENTS = reason('field_required', "give 'active' or 'events' to change")

// Saved views and bulk changes (docs/tickets-api.md, "Saved views", "Bulk changes")
export const viewNameLength = (max: number) =>
  reason('bad_field', `'name' must be 1 to ${max} characters`)
export const viewNameTaken = (name: string) =>
  reason('name_taken', `a view named '${name}' is already saved here`)
export const BAD_SCOPE = reason('bad_field', "'scope' must be 'mine' or 'shared'")
export const NO_SUCH_VIEW = reason('no_such_view', 'no such view in this project')
export const NOT_YOUR_VIEW = reason('forbidden', 'this view is another person’s')
export const tooManyViews = (max: number) =>
  reason('too_many', `at most ${max} views of each kind a project: remove one first`)
export const NAME_OR_Q = reason('field_required', "give 'name' or 'q' to change")
export const ONE_BULK_CHANGE = reason(
  'bad_field',
  "give exactly one change: 'state', 'assignee', 'addLabel', 'removeLabel', 'milestone' or 'undo'",
)
export const BULK_NEEDS_Q = reason(
  'field_required',
  "'q' is required: the search of the tickets to change",
)
export const BAD_NUMBERS = reason(
  'bad_field',
  "'numbers' must be ticket numbers separated by commas (12,13,20), at most 1000",
)
export const tooManyToChange = (max: number) =>
  reason(
    'too_many',
    `the search finds more than ${max} tickets: narrow it, at most ${max} are changed at once`,
  )
export const NO_SUCH_BULK_CHANGE = reason(
  'no_such_change',
  'this bulk change cannot be undone: it is unknown, already undone, more than a day old or another person’s',
)

// Live events
export const BAD_CURSOR = reason('bad_field', "'after' must be a cursor from an earlier answer")
export const TOO_MANY_WAITING = reason('too_many_waiting', 'too many waiting requests')

// The importer (docs/tickets-api.md, "Importing tickets"); `at` is the place in the file.
export const IMPORT_NOT_OBJECT = reason(
  'bad_import',
  'the file must hold a JSON object with project and tickets',
)
export const IMPORT_NO_SLUG = reason('bad_import', 'project.slug is required')
export const IMPORT_TICKETS_NOT_LIST = reason('bad_import', 'tickets must be a list')
/** The import file's JSON does not parse; `detail` is the parser's own words, with the place. */
export const importNotJson = (detail: string) =>
  reason('bad_import', `the file is not valid JSON: ${detail}`)
export const IMPORT_PARENT_CYCLE = reason('bad_import', 'the parents in the file make a cycle')
export const IMPORT_NO_PROJECT_ID = reason(
  'bad_import',
  'could not make a project id; run the import again',
)
export const mustBeString = (at: string) => reason('bad_import', `${at} must be a string`)
export const isRequired = (at: string) => reason('bad_import', `${at} is required`)
export const mustBeObject = (at: string) => reason('bad_import', `${at} must be an object`)
export const mustBeList = (at: string) => reason('bad_import', `${at} must be a list`)
export const badOldNumber = (at: string) =>
  reason('bad_import', `${at}.number must be a whole number from 1`)
export const numberTwice = (at: string, n: number) =>
  reason('bad_import', `${at}.number ${n} appears twice`)
export const badImportState = (at: string) =>
  reason('bad_import', `${at}.state must be one of open, doing, review, done, dropped`)
export const badTime = (at: string) =>
  reason('bad_import', `${at}.created must be milliseconds since 1970 or an ISO 8601 time`)
export const importTooLong = (at: string, max: number) => reason('bad_import', isAtMost(at, max))
export const badParent = (at: string) =>
  reason('bad_import', `${at}.parent must be an old ticket number`)
export const badBlockedBy = (at: string) =>
  reason('bad_import', `${at}.blockedBy must be a list of old ticket numbers`)
export const relatedToItself = (at: string) =>
  reason('bad_import', `${at} cannot be related to itself`)
export const otherProjectsNumber = (n: number) =>
  reason('bad_import', `old number ${n} already belongs to a ticket of another project`)
export const unknownOldNumber = (at: number, n: number) =>
  reason(
    'bad_import',
    `ticket ${at} names old number ${n}, which is neither in the file nor imported`,
  )
export const importNeedsAdmin = (slug: string) =>
  reason(
    'bad_import',
    `project '${slug}' does not exist: give project.admin, a person who has logged in, to create it`,
  )
/** Another check's refusal, said of a place in the file. */
export const atPlace = (at: string, why: Reason) => reason('bad_import', `${at}: ${why.message}`)
export const importFileSource = (at: string) =>
  reason('bad_import', `${at} needs either path (a file beside the export) or content (base64)`)
export const importFileOutside = (at: string) =>
  reason('bad_import', `${at}.path must name a file inside the export file's folder`)
export const importFileMissing = (at: string, path: string) =>
  reason('bad_import', `${at}.path: there is no file '${path}' beside the export`)
export const importFileNoFolder = (at: string) =>
  reason('bad_import', `${at}.path needs the export read from a file; give content instead`)
export const importFileNotBase64 = (at: string) =>
  reason('bad_import', `${at}.content must be the file's bytes in base64`)
export const importFileEmpty = (at: string) => reason('bad_import', `${at} is empty`)
export const importFileTooLarge = (at: string, maxMb: number) =>
  reason('bad_import', `${at} is larger than the limit of ${maxMb} MB a file (UPLOAD_MAX_MB)`)
export const notLoggedInHere = (name: string) => `'${name}' has not logged in here: kept as a name`

/** Files (docs/tickets-api.md, "Files"). Sizes in MB of 1,048,576 bytes, as the settings count them. */
export const fileTooLarge = (maxMb: number) =>
  reason('file_too_large', `a file may be at most ${maxMb} MB (UPLOAD_MAX_MB)`)
export const projectFilesFull = (useMb: string, maxMb: number) =>
  reason(
    'project_files_full',
    `this project's files use ${useMb} MB of its ${maxMb} MB (PROJECT_FILES_MAX_MB): remove unused files or ask for a higher limit`,
  )
export const FILE_EMPTY = reason('file_empty', 'the file is empty')
export const NO_SUCH_FILE = reason('no_such_file', 'no such file')

// Labels, milestones and due dates (docs/tickets-api.md, "Labels, milestones and due dates")
export const BAD_LABEL_NAME = reason(
  'bad_field',
  "'name' must be 1 to 50 characters, without double quotes or control characters",
)
export const labelTaken = (name: string) =>
  reason('label_taken', `this project already has a label '${name}'`)
export const BAD_COLOR = reason('bad_field', "'color' must be #rrggbb, six hexadecimal digits")
export const noSuchLabel = (name: string) =>
  reason('no_such_label', `this project has no label '${name}'`)
export const NO_SUCH_LABEL = reason('no_such_label', 'no such label in this project')
export const alreadyLabeled = (name: string) =>
  reason('already_so', `the ticket already has the label '${name}'`)
export const notLabeled = (name: string) =>
  reason('already_so', `the ticket does not have the label '${name}'`)
export const LABEL_CHANGE_NEEDED = reason(
  'field_required',
  "give 'name', 'color' or 'description' to change",
)
export const BAD_MILESTONE_TITLE = reason(
  'bad_field',
  "'title' must be 1 to 100 characters, without double quotes or control characters",
)
export const milestoneTaken = (title: string) =>
  reason('milestone_taken', `this project already has a milestone '${title}'`)
export const noSuchMilestone = (title: string) =>
  reason('no_such_milestone', `this project has no milestone '${title}'`)
export const NO_SUCH_MILESTONE = reason('no_such_milestone', 'no such milestone in this project')
export const alreadyInMilestone = (title: string) =>
  reason('already_so', `the ticket is already in the milestone '${title}'`)
export const ALREADY_NO_MILESTONE = reason('already_so', 'the ticket has no milestone already')
export const badDay = (field: string) =>
  reason('bad_field', `'${field}' must be a day as YYYY-MM-DD (for example 2026-12-31), or empty`)
export const alreadyDue = (day: string) => reason('already_so', `the ticket is already due ${day}`)
export const ALREADY_NO_DUE = reason('already_so', 'the ticket has no due date already')
export const BAD_MILESTONE_STATE = reason('bad_field', "'state' must be open or closed")
export const MILESTONE_CHANGE_NEEDED = reason(
  'field_required',
  "give 'title', 'due', 'description' or 'state' to change",
)
export const tooManyLabels = (max: number) =>
  reason('too_many', `a project has at most ${max} labels: delete one first`)
export const tooManyMilestones = (max: number) =>
  reason('too_many', `a project has at most ${max} milestones: delete one first`)
export const badImportLabels = (at: string) =>
  reason(
    'bad_import',
    `${at}.labels must be a list of label names (1 to 50 characters, without double quotes or control characters)`,
  )
export const badImportLabel = (at: string) =>
  reason(
    'bad_import',
    `${at} must be { name, color?, description? }: a name of 1 to 50 characters, a colour #rrggbb, a description of at most 200 characters`,
  )
export const badImportMilestone = (at: string) =>
  reason(
    'bad_import',
    `${at}.milestone must be a milestone title (1 to 100 characters, without double quotes or control characters)`,
  )
export const badImportMilestoneEntry = (at: string) =>
  reason(
    'bad_import',
    `${at} must be { title, due?, description?, state? }: a title of 1 to 100 characters, due YYYY-MM-DD, state open or closed`,
  )
export const badImportDue = (at: string) =>
  reason('bad_import', `${at}.due must be a day as YYYY-MM-DD`)
/** Notifications (docs/tickets-api.md, "Notifications"; docs/notifications.md). */
export const NO_SUCH_NOTIFICATION = reason('no_such_notification', 'no such notification')
export const READ_WHAT = reason('bad_field', "give 'id' or 'all': \"true\"")
export const READ_ALL_TRUE = reason('bad_field', '\'all\' must be "true"')
export const BAD_NOTIFICATIONS_AFTER = reason(
  'bad_field',
  "'after' must be a cursor from a 'next' address of this list",
)
export const DEFAULTS_OWNER_ONLY = reason(
  'forbidden',
  'only the owner may change the default for new people',
)
export const badPref = (name: string) => reason('bad_field', `'${name}' must be "true" or "false"`)
