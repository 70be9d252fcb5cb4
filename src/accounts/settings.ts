/**
 * The built-in provider's pages for a signed-in person (docs/core.md, "Built-in accounts"):
 * `/account` (display name, password change, passkeys, sign out everywhere) and, for the owner,
 * `/admin` (people, reset links, disabling, sign-up links, open sign-up). Every form's token is
 * checked by `memberForm` before any change.
 */
import type { HttpRoute } from '../http/handler.ts'
import type { Html } from '../http/html.ts'
import type { Request } from '../http/request.ts'
import { redirect, type Headers, type Response } from '../http/response.ts'
import type { SignInAttempts } from './attempts.ts'
import { accountContent, adminContent } from './pages.ts'
import { passwordDefect, verifyPassword } from './password.ts'
import type { createPasskeys } from './passkeys.ts'
import { expired, wholeNumber } from './forms.ts'
import { TEXT } from './messages.ts'
import { SESSION_COOKIE, type Account, type AccountStore } from './store.ts'
import { cookieName } from './cookies.ts'
import { confirmEmailContent } from './pages.ts'
import type { Refusal } from '../http/refusal.ts'
import { mailAddress, type AccountMailer, type Checked } from './provider-core.ts'

/** What the provider hands these pages. */
export interface SettingsTools {
  store: AccountStore
  attempts: SignInAttempts
  publicUrl: string
  apps: { name: string; url: string }[]
  secure: boolean
  page(
    req: Request,
    status: number,
    title: string,
    content: (csrf: string) => Html,
    options?: { account?: Account | null; wide?: boolean; headers?: Headers },
  ): Response
  message(
    req: Request,
    status: number,
    title: string,
    text: string,
    next?: { href: string; text: string },
  ): Response
  member(req: Request, owner: boolean): Promise<Checked<{ account: Account }>>
  memberForm(
    req: Request,
    owner: boolean,
  ): Promise<Checked<{ account: Account; form: URLSearchParams }>>
  passkeys: ReturnType<typeof createPasskeys>
  /** The organisation's OpenID Connect provider (its button's words and issuer), or null. */
  oidc: { name: string; issuer: string } | null
  /** Runs a password hash for the request under the ceiling on hashes: its answer, or 'busy'. */
  hashing<T>(req: Request, work: () => Promise<T>): Promise<T | 'busy'>
  /** The stored form of a new password, at the provider's cost. */
  hashed(password: string): Promise<string>
  /** The answer when no hash could be had. */
  busy(req: Request): Response
  /** The form of a POST, its browser token checked. */
  checkedForm(req: Request): Promise<Checked<{ form: URLSearchParams }>>
  /** The page answering a refused form or page. */
  refused(req: Request, refusal: Refusal): Response
  /** Where confirmation links are mailed from, or null when this site sends no mail. */
  mailer: AccountMailer | null
  /** The account's address when a service stopped mailing it because a server refused it. */
  refusedEmail(accountId: string): Promise<string | null>
}

export function settingsRoutes(tools: SettingsTools): HttpRoute[] {
  const { store, attempts, apps, secure, page, member, memberForm, passkeys } = tools
  const { publicUrl } = tools
  async function accountPage(
    req: Request,
    account: Account,
    status = 200,
    notice: string | null = null,
    errors: Parameters<typeof accountContent>[0]['errors'] = {},
  ): Promise<Response> {
    const [keys, pending, refused] = await Promise.all([
      passkeys.list(account.id),
      store.pendingEmail(account.id),
      tools.refusedEmail(account.id),
    ])
    const email = { pending, mail: tools.mailer !== null, refused }
    return page(
      req,
      status,
      'Your account',
      (csrf) => accountContent({ account, csrf, apps, passkeys: keys, notice, errors, email }),
      { account, wide: true },
    )
  }

  const NOTICES: Record<string, string> = Object.assign(Object.create(null), {
    name: 'Your display name is saved. The apps show it from your next sign-in.',
    password:
      'Your password is changed. Every other place you were signed in, here and in the apps, is signed out.',
    passkey: 'Your passkey is added.',
    renamed: 'The passkey is renamed.',
    removed: 'The passkey is removed.',
    'email-sent':
      'A link to confirm the address is on its way there. Open it within 24 hours; until then mail goes where it went before.',
    'email-removed': 'Your email address is removed: the apps send you no more mail.',
  })

  /** Mails a link confirming `email` for the account; false when the mail server did not take it. */
  async function mailConfirmation(account: Account, email: string): Promise<boolean> {
    const link = await store.createEmailLink(account.id, email)
    return tools.mailer!.send({
      to: email,
      subject: 'Confirm your email address',
      text: `Someone, we hope you, gave this address to the account ${account.name} at ${publicUrl}.

Open this link within 24 hours to confirm it:

${publicUrl}/account/email/confirm?link=${link}

Until it is confirmed, nothing is mailed here. If it was not you, ignore this mail.
`,
    })
  }

  async function adminPage(
    req: Request,
    account: Account,
    status = 200,
    made: { what: string; url: string } | null = null,
    error: string | null = null,
  ): Promise<Response> {
    const [people, openSignup, links, linked] = await Promise.all([
      store.list(),
      store.openSignup(),
      store.signupLinks(),
      tools.oidc ? store.linkedAccounts(tools.oidc.issuer) : null,
    ])
    const sso = tools.oidc && linked ? { name: tools.oidc.name, linked } : null
    return page(
      req,
      status,
      'Admin',
      (csrf) => adminContent({ csrf, people, openSignup, links, made, error, sso }),
      { account, wide: true },
    )
  }

  return [
    {
      method: 'GET',
      path: '/account',
      handler: async (req) => {
        const who = await member(req, false)
        if (!who.ok) return tools.refused(req, who)
        return accountPage(req, who.account, 200, NOTICES[req.query.get('done') ?? ''] ?? null)
      },
    },
    {
      method: 'POST',
      path: '/account/name',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return tools.refused(req, got)
        const name = (got.form.get('display_name') ?? '').trim()
        if (name === '' || name.length > 100)
          return accountPage(req, got.account, 400, null, {
            displayName: name === '' ? TEXT.nameRequired : TEXT.nameTooLong,
          })
        await store.setDisplayName(got.account.id, name)
        return redirect(303, '/account?done=name')
      },
    },
    {
      method: 'POST',
      path: '/account/email',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return tools.refused(req, got)
        if (tools.mailer === null) return accountPage(req, got.account, 409)
        const email = mailAddress(got.form.get('email') ?? '')
        if (email === null)
          return accountPage(req, got.account, 400, null, { email: TEXT.emailInvalid })
        if (!(await mailConfirmation(got.account, email)))
          return accountPage(req, got.account, 503, null, { email: TEXT.emailNotSent })
        return redirect(303, '/account?done=email-sent')
      },
    },
    {
      method: 'POST',
      path: '/account/email/remove',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return tools.refused(req, got)
        await store.removeEmail(got.account.id)
        return redirect(303, '/account?done=email-removed')
      },
    },
    // The link mailed to a new address: a page with one button, so that a mail scanner opening
    // links confirms nothing; no sign-in needed, the link is the proof.
    {
      method: 'GET',
      path: '/account/email/confirm',
      handler: async (req) => {
        const link = req.query.get('link') ?? ''
        const found = await store.emailLink(link)
        if (found === null)
          return tools.message(req, 404, 'Confirm your email address', TEXT.emailLinkUnknown, {
            href: '/account',
            text: 'Your account',
          })
        return page(req, 200, 'Confirm your email address', (csrf) =>
          confirmEmailContent(link, csrf, found.email),
        )
      },
    },
    {
      method: 'POST',
      path: '/account/email/confirm',
      handler: async (req) => {
        const got = await tools.checkedForm(req)
        if (!got.ok) return tools.refused(req, got)
        const confirmed = await store.confirmEmail(got.form.get('link') ?? '')
        if (confirmed === null)
          return tools.message(req, 404, 'Confirm your email address', TEXT.emailLinkUnknown, {
            href: '/account',
            text: 'Your account',
          })
        return tools.message(
          req,
          200,
          'Email address confirmed',
          TEXT.emailConfirmed(confirmed.email),
          { href: '/account', text: 'Your account' },
        )
      },
    },
    {
      method: 'POST',
      path: '/account/password',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return tools.refused(req, got)
        const { account, form } = got
        const wait = Math.max(
          await attempts.fromAddress(req),
          await attempts.accountWait(req, account.name),
        )
        if (wait > 0)
          return accountPage(req, account, 429, null, {
            current: TEXT.tooManyAttempts(Math.ceil(wait / 1000)),
          })
        const password = form.get('password') ?? ''
        const matches = await tools.hashing(req, () =>
          verifyPassword((form.get('current') ?? '').slice(0, 1000), account.passwordHash),
        )
        if (matches === 'busy') return tools.busy(req)
        if (!matches) {
          await attempts.failed(req, account.name)
          return accountPage(req, account, 400, null, { current: TEXT.wrongCurrent })
        }
        const weak = passwordDefect(password)
        if (weak !== null) return accountPage(req, account, 400, null, { password: weak })
        const passwordHash = await tools.hashing(req, () => tools.hashed(password))
        if (passwordHash === 'busy') return tools.busy(req)
        await store.setPassword(
          account.id,
          passwordHash,
          req.cookies[cookieName(SESSION_COOKIE, secure)] ?? '',
        )
        return redirect(303, '/account?done=password')
      },
    },
    {
      method: 'POST',
      path: '/account/signout-everywhere',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return tools.refused(req, got)
        await store.signOutEverywhere(got.account.id)
        return redirect(303, '/login', 'signed out everywhere', {
          'set-cookie': expired(cookieName(SESSION_COOKIE, secure), secure),
          'cache-control': 'no-store',
        })
      },
    },
    {
      method: 'GET',
      path: '/admin',
      handler: async (req) => {
        const who = await member(req, true)
        return who.ok ? adminPage(req, who.account) : tools.refused(req, who)
      },
    },
    {
      method: 'POST',
      path: '/admin/signup-links',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return tools.refused(req, got)
        const uses = wholeNumber(got.form.get('uses'), 1, 1000)
        const days = wholeNumber(got.form.get('days'), 1, 90)
        if (uses === null || days === null)
          return adminPage(
            req,
            got.account,
            400,
            null,
            'Uses is a whole number from 1 to 1000, and days from 1 to 90.',
          )
        const link = await store.createSignupLink(uses, days)
        const what = `A sign-up link for ${uses === 1 ? 'one person' : `${uses} people`}, valid for ${days} ${days === 1 ? 'day' : 'days'}.`
        return adminPage(req, got.account, 200, { what, url: `${publicUrl}/signup?link=${link}` })
      },
    },
    {
      method: 'POST',
      path: '/admin/signup-links/:id/revoke',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return tools.refused(req, got)
        if (!(await store.revokeSignupLink(req.params.id!)))
          return adminPage(
            req,
            got.account,
            404,
            null,
            'That sign-up link is no longer live: it was used up, it expired or it was revoked already.',
          )
        return redirect(303, '/admin')
      },
    },
    {
      method: 'POST',
      path: '/admin/open-signup',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return tools.refused(req, got)
        await store.setOpenSignup(got.form.get('on') === '1')
        return redirect(303, '/admin')
      },
    },
    {
      method: 'POST',
      path: '/admin/people/:id/:action',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return tools.refused(req, got)
        const person = await store.byId(req.params.id ?? '')
        const action = req.params.action
        if (action === 'oidc-link' && person !== null && tools.oidc) {
          // The owner too may move from a password to the organisation's provider.
          const link = await store.createIdentityLink(person.id)
          const what = `A link for ${person.name} to sign in with ${tools.oidc.name} from now on, valid for 24 hours and once. Their notes and projects stay theirs.`
          return adminPage(req, got.account, 200, {
            what,
            url: `${publicUrl}/oidc/link?link=${link}`,
          })
        }
        if (person === null || person.isOwner)
          return adminPage(
            req,
            got.account,
            404,
            null,
            'There is no such person, or the owner cannot be changed here.',
          )
        if (action === 'reset') {
          const link = await store.createResetLink(person.id)
          return adminPage(req, got.account, 200, {
            what: `A password reset link for ${person.name}, valid for 24 hours and once.`,
            url: `${publicUrl}/reset?link=${link}`,
          })
        }
        if (action !== 'disable' && action !== 'enable')
          return adminPage(req, got.account, 404, null, 'There is no such action.')
        await store.setDisabled(person.id, action === 'disable')
        return redirect(303, '/admin')
      },
    },
    ...passkeys.routes({ memberForm, accountPage, refused: tools.refused }),
  ]
}
