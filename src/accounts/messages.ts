/** The texts the built-in provider's pages show, each in one place. */
import { reason } from '../http/refusal.ts'

export const TEXT = {
  wrongNameOrPassword: 'Wrong name or password.',
  tooManyAttempts: (seconds: number) =>
    `Too many sign-in attempts. Try again in ${seconds} seconds.`,
  unknownKey: 'This app key is not known here, so the sign-in is refused.',
  badReturn: "The sign-in must return to one of this site's apps.",
  formExpired: 'This form has expired. Go back, reload the page and try again.',
  nameRequired: 'Enter a name.',
  nameTooLong: 'A name has at most 100 characters.',
  nameTaken: 'That name is taken. Choose another.',
  ownerExists: 'The owner account exists already. Sign in instead.',
  signUpClosed: 'Sign-up here needs a link from the owner of this site, or an invite to a project.',
  linkUsed:
    'This sign-up link is no longer valid: it was used up, it expired or the owner revoked it. Ask the owner for a new one.',
  resetUnknown: 'This reset link has been used or has expired. Ask the owner for a new one.',
  wrongCurrent: 'The current password is wrong.',
  inviteRevoked:
    'This invite is no longer valid: an admin of the project revoked it. Ask them for a new one.',
  forgotPassword:
    'Ask the owner of this site for a reset link: they make one on their Admin page, under People, and it works once, for 24 hours. If you added a passkey, you can sign in with it instead.',
  forgotMailed:
    'If an account here has that name or address and a confirmed email address, a reset link is on its way there. It works once, for 24 hours. No mail within a few minutes? Ask the owner of this site for a reset link.',
  emailInvalid: 'Enter an email address such as name@example.org.',
  emailNotSent:
    'The confirmation mail could not be sent just now. Try again in a few minutes; nothing has changed.',
  emailLinkUnknown:
    'This confirmation link has been used or has expired. Enter the address again on your account page for a new one.',
  emailConfirmed: (email: string) =>
    `${email} is confirmed: the apps mail you there from their next mail on.`,
  busy: 'Many people are signing in at this moment. Try again in a few seconds.',
  formUnreadable: 'The form could not be read. Go back and try again.',
  invitePlacesTaken: 'This invite has made as many accounts as it has uses. Ask for a new invite.',
} as const

/**
 * The refusals the provider's pages answer (with the page of src/accounts/provider.ts,
 * `refused`): of a login request, of a page's form, of a sign-up or a password reset.
 */
export const REFUSED = {
  unknownKey: reason('bad_login_request', TEXT.unknownKey),
  badReturn: reason('bad_login_request', TEXT.badReturn),
  formUnreadable: reason('bad_form', TEXT.formUnreadable),
  formExpired: reason('form_expired', TEXT.formExpired),
  ownerOnly: reason('forbidden', 'Only the owner of this site sees this page.'),
  signedOut: reason('not_signed_in', 'Sign in first.'),
  signUpClosed: reason('signup_closed', TEXT.signUpClosed),
  linkUsed: reason('link_used', TEXT.linkUsed),
  inviteRevoked: reason('invite_revoked', TEXT.inviteRevoked),
  invitePlacesTaken: reason('invite_used_up', TEXT.invitePlacesTaken),
  resetUnknown: reason('no_such_reset_link', TEXT.resetUnknown),
  tooManyAttempts: (seconds: number) => reason('too_many_attempts', TEXT.tooManyAttempts(seconds)),
  wrongNameOrPassword: reason('login_failed', TEXT.wrongNameOrPassword),
  ownerExists: reason('owner_exists', TEXT.ownerExists),
  /** Too many sign-ins waiting for a password hash (src/accounts/hash-gate.ts). */
  busy: reason('too_many_waiting', TEXT.busy),
  /** POST /forgot where this site sends no mail: the owner makes reset links. */
  noResetMail: reason('not_found', TEXT.forgotPassword),
} as const

/** The refusals of the provider's API for the apps (`/api/exchange`, `/api/signout`). */
export const API_REFUSED = {
  badSecret: reason('bad_app_secret', 'unknown app key or wrong secret'),
  codeUnknown: reason('login_failed', 'login code unknown, used or expired'),
  sidNeeded: reason('bad_field', 'sid must be the sign-in id the exchange answered'),
} as const
