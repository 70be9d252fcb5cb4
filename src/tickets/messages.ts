/**
 * The message texts of the ticket service, kept in one place (the same name as the notes
 * service's): docs/tickets-api.md quotes most of them word for word.
 */

export const NO_SUCH_TICKET = 'no such ticket'
export const NO_SUCH_PROJECT = 'no such project'
export const NO_SUCH_TOKEN = 'no such token'

export const TOKEN_NEEDED = 'a token is needed'
export const BAD_TOKEN = 'bad or revoked token'
export const USER_TOKEN_NEEDED = 'a user token is needed'
export const KEY_OTHER_PROJECT = "this project key belongs to another project"
export const KEY_PERSON_GONE = 'the person who connected this app is no longer a member of this project'

export const AUTHOR_REFUSED = "'author' is not accepted: the author is the token's user"
export const BODY_NOT_OBJECT = 'the body must be a JSON object'
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
/** A JSON field over its length limit (the API's wording). */
export const fieldTooLong = (name: string, max: number) => `'${name}' is at most ${max} characters`
/** A connect query parameter over its length limit (the connect flow's wording). */
export const atMost = (name: string, max: number) => `${name} must be at most ${max} characters`
export const givenTwice = (name: string) => `${name} is given more than once`
export const hasControl = (name: string) => `${name} must not contain control characters`
export const BAD_RETURN = 'return must be an absolute https URL (http only for localhost, 127.0.0.1 or [::1])'
export const RETURN_HAS_EXTRA = 'return must not have a user name, a password or a #fragment'
export const RETURN_HAS_PARAMS = 'return must not already carry code or state in its query'
export const NO_SUCH_REQUEST = 'this connect request is unknown, used or expired: start again from the app'
export const PROJECT_OR_TITLE = "give exactly one of 'project' or 'title'"
export const BAD_CODE = 'unknown, used or expired code'
export const NO_SUCH_CONNECTION = 'no such connection in this project'
