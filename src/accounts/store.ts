/**
 * The built-in provider's accounts in the services' database (sql/0016_accounts.sql): accounts,
 * the provider's own browser sessions, one-time login codes, sign-up and reset links. Every
 * secret is stored as its hex SHA-256 ({@link hashSecret}); single use and "N uses" hold under
 * concurrency by one statement each.
 */
import type { Query, Sql } from '../db/client.ts'
import { hashSecret, randomToken, recordId } from '../base/random.ts'
import { reason, refuse, type Refusal } from '../http/refusal.ts'
import { nameKey } from './names.ts'
import type { ServiceHooks } from './service-hooks.ts'

export interface Account {
  id: string
  name: string
  displayName: string
  passwordHash: string
  isOwner: boolean
  disabled: boolean
  created: number
  lastSignIn: number | null
  /** The confirmed mail address, or null: only a confirmed address gets mail. */
  email: string | null
}

/** The provider session's cookie, on the provider's origin. */
export const SESSION_COOKIE = 'idp_session'
/** How long a provider session lives. */
export const PROVIDER_SESSION_MS = 30 * 24 * 60 * 60 * 1000
/** How long a login code lives (docs/core.md, "Identity provider"). */
export const CODE_MS = 60_000
/** How long a password reset link lives. */
export const RESET_MS = 24 * 60 * 60 * 1000
/** How long a link confirming a mail address lives. */
export const EMAIL_LINK_MS = 24 * 60 * 60 * 1000

const OPEN_SIGNUP_KEY = 'idp_open_signup'

interface AccountRow {
  id: string
  name: string
  display_name: string
  password_hash: string
  is_owner: boolean
  disabled: boolean
  created: number
  last_sign_in: number | null
  email: string | null
}

function account(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    passwordHash: row.password_hash,
    isOwner: row.is_owner,
    disabled: row.disabled,
    created: Number(row.created),
    lastSignIn: row.last_sign_in === null ? null : Number(row.last_sign_in),
    email: row.email,
  }
}

/** A made account, or why not: `name_taken`, `owner_exists` or `place_taken` (409). */
export type CreateResult = { ok: true; account: Account } | Refusal

/** Why the store refuses: the provider's pages say each in their own words (messages.ts). */
const NAME_TAKEN = reason('name_taken', 'the name is taken')
const OWNER_EXISTS = reason('owner_exists', 'the owner account exists')
const PLACE_TAKEN = reason('place_taken', "the invite's sign-up places are taken")
const LINK_USED = reason('link_used', 'the identity link is used up or expired')
const IDENTITY_TAKEN = reason('identity_taken', 'the identity belongs to another account')

/**
 * What a new account must take in the transaction that makes it (a project invite's sign-up
 * place): false refuses the account, as `place_taken`.
 */
export type SignUpPlace = (tx: Query) => Promise<boolean>

export type AccountStore = ReturnType<typeof createAccountStore>

/**
 * The store on `sql`; `clock` gives milliseconds since the epoch; `hooks` end what an account
 * holds at the services when it signs out everywhere, changes or resets its password, or is
 * disabled, and take an invite's sign-up place.
 */
export function createAccountStore(deps: {
  sql: Sql
  clock: () => number
  hooks: readonly ServiceHooks[]
}) {
  const { sql, clock, hooks } = deps

  /**
   * Ends sessions of the account: at the provider (all, or all but the one whose cookie is
   * `keep`), then each service's through its hook. A deleted `sessions` row is a signed-out
   * session in every process.
   */
  async function endSessions(
    tx: Query,
    accountId: string,
    options: { keep?: string } = {},
  ): Promise<void> {
    if (options.keep === undefined)
      await tx`delete from idp_sessions where account_id = ${accountId}`
    else
      await tx`delete from idp_sessions where account_id = ${accountId} and id_hash <> ${hashSecret(options.keep)}`
    for (const h of hooks) await h.endSessions(tx, accountId)
  }

  /** Sets the confirmed address in `tx` and tells every service (null: removed). */
  async function setEmail(tx: Query, accountId: string, email: string | null): Promise<void> {
    await tx`update idp_accounts set email = ${email} where id = ${accountId}`
    for (const h of hooks) await h.onEmailChange?.(tx, accountId, email)
  }

  const one = (rows: AccountRow[]): Account | null => (rows[0] ? account(rows[0]) : null)
  const byId = async (id: string): Promise<Account | null> =>
    one(await sql<AccountRow[]>`select * from idp_accounts where id = ${id}`)

  /** The enabled account a provider session cookie names and the session's sign-in id, or null. */
  async function sessionOf(
    cookie: string | undefined,
  ): Promise<{ account: Account; sid: string } | null> {
    if (!cookie || cookie.length > 100) return null
    const [row] = await sql<(AccountRow & { session_sid: string })[]>`
      select a.*, s.sid as session_sid from idp_sessions s join idp_accounts a on a.id = s.account_id
      where s.id_hash = ${hashSecret(cookie)} and s.expires > ${clock()} and not a.disabled`
    return row ? { account: account(row), sid: row.session_sid } : null
  }

  return {
    /** True once any account exists (the first run is over). */
    async hasAccounts(): Promise<boolean> {
      const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from idp_accounts) as any`
      return row!.any
    },

    /**
     * Makes an account. `owner: true` makes the owner, refused once there is any account; the
     * unique indexes decide a race between two first runs or two sign-ups with one name.
     */
    async create(input: {
      name: string
      passwordHash: string
      owner: boolean
      place?: SignUpPlace
    }): Promise<CreateResult> {
      const now = clock()
      try {
        const rows = await sql.begin(async (tx) => {
          if (input.place && !(await input.place(tx))) return null
          return input.owner
            ? await tx<AccountRow[]>`
                insert into idp_accounts (id, name, name_key, display_name, password_hash, is_owner, created)
                select ${recordId()}, ${input.name}, ${nameKey(input.name)}, ${input.name}, ${input.passwordHash}, true, ${now}
                where not exists (select 1 from idp_accounts)
                returning *`
            : await tx<AccountRow[]>`
                insert into idp_accounts (id, name, name_key, display_name, password_hash, created)
                values (${recordId()}, ${input.name}, ${nameKey(input.name)}, ${input.name}, ${input.passwordHash}, ${now})
                returning *`
        })
        if (rows === null) return refuse(409, PLACE_TAKEN)
        if (rows.length === 0) return refuse(409, OWNER_EXISTS)
        return { ok: true, account: account(rows[0]!) }
      } catch (err) {
        const constraint = (err as { constraint_name?: string }).constraint_name
        if (constraint === 'idp_accounts_name') return refuse(409, NAME_TAKEN)
        if (constraint === 'idp_accounts_one_owner') return refuse(409, OWNER_EXISTS)
        throw err
      }
    },

    /** The account whose name is `name` by {@link nameKey}: one spelling rule for every caller. */
    async byName(name: string): Promise<Account | null> {
      return one(
        await sql<AccountRow[]>`select * from idp_accounts where name_key = ${nameKey(name)}`,
      )
    },

    byId,

    /** Every account, oldest first (the owner's people list). */
    async list(): Promise<Account[]> {
      return (await sql<AccountRow[]>`select * from idp_accounts order by created, id`).map(account)
    },

    async recordSignIn(id: string): Promise<void> {
      await sql`update idp_accounts set last_sign_in = ${clock()} where id = ${id}`
    },

    async setDisplayName(id: string, displayName: string): Promise<void> {
      await sql`update idp_accounts set display_name = ${displayName} where id = ${id}`
    },

    /**
     * Sets a new password (a change on `/account`) and ends, in the same transaction, every
     * other session of the account: the provider's but the one of `keep` (the cookie of the
     * browser that changed it), and all of both services'.
     */
    async setPassword(id: string, passwordHash: string, keep: string): Promise<void> {
      await sql.begin(async (tx) => {
        await tx`update idp_accounts set password_hash = ${passwordHash} where id = ${id}`
        await endSessions(tx, id, { keep })
      })
    },

    /**
     * Disables or enables an account. Disabling ends, in one transaction, its sessions here and
     * at every service, then runs each service's `onDisable` (the tracker revokes its user
     * tokens, the project keys it confirmed and those keys' webhooks).
     */
    async setDisabled(id: string, disabled: boolean): Promise<void> {
      await sql.begin(async (tx) => {
        const changed =
          await tx`update idp_accounts set disabled = ${disabled} where id = ${id} and not is_owner returning 1`
        if (disabled && changed.length === 1) {
          await endSessions(tx, id)
          for (const h of hooks) await h.onDisable?.(tx, id)
        }
      })
    },

    /** "Sign out everywhere": the provider's sessions and both services' sessions of the account. */
    async signOutEverywhere(id: string): Promise<void> {
      await sql.begin((tx) => endSessions(tx, id))
    },

    /**
     * A new provider session for the account: the cookie's value (only its hash is kept) and its
     * sign-in id, which the login codes it issues carry to the apps. `sid` carries on the sign-in
     * id of the session it replaces in this browser, so one sign-out still ends the apps' sessions
     * that one started.
     */
    async startSession(accountId: string, sid?: string): Promise<{ cookie: string; sid: string }> {
      const id = randomToken(32)
      const signIn = sid ?? randomToken(16)
      const now = clock()
      await sql`delete from idp_sessions where expires <= ${now}`
      await sql`insert into idp_sessions (id_hash, account_id, sid, created, expires) values (${hashSecret(id)}, ${accountId}, ${signIn}, ${now}, ${now + PROVIDER_SESSION_MS})`
      return { cookie: id, sid: signIn }
    },

    /** The enabled account a provider session cookie names, or null. */
    async sessionAccount(cookie: string | undefined): Promise<Account | null> {
      return (await sessionOf(cookie))?.account ?? null
    },

    session: sessionOf,

    /**
     * Takes the provider session of `cookie` out of the way of a new sign-in in this browser:
     * its row goes, and its sign-in id is answered for the new session to carry on (null when
     * there was none).
     */
    async replaceSession(cookie: string | undefined): Promise<string | null> {
      if (!cookie || cookie.length > 100) return null
      const [row] = await sql<{ sid: string }[]>`
        delete from idp_sessions where id_hash = ${hashSecret(cookie)} and expires > ${clock()} returning sid`
      return row?.sid ?? null
    },

    /**
     * Signs this browser out (issue 36, point 2): the provider session of `cookie` ends, and in
     * the same transaction every app session it started, through each service's hook, as OpenID
     * Connect's back-channel logout would.
     */
    async endSession(cookie: string | undefined): Promise<void> {
      if (!cookie || cookie.length > 100) return
      await sql.begin(async (tx) => {
        const [row] = await tx<{ sid: string }[]>`
          delete from idp_sessions where id_hash = ${hashSecret(cookie)} returning sid`
        if (row) for (const h of hooks) await h.endSignIn(tx, row.sid)
      })
    },

    /**
     * Ends the sign-in `sid` (an app's sign-out, `POST /api/signout`): the provider session
     * that has it and every app session it started. Answers whether a provider session ended.
     */
    async endSignIn(sid: string): Promise<boolean> {
      if (sid === '' || sid.length > 100) return false
      return sql.begin(async (tx) => {
        const gone = await tx`delete from idp_sessions where sid = ${sid} returning 1`
        for (const h of hooks) await h.endSignIn(tx, sid)
        return gone.length > 0
      })
    },

    /** A one-time login code for the account, carrying the sign-in id of the browser's provider session. */
    async issueCode(accountId: string, sid: string | null): Promise<string> {
      const code = randomToken(24)
      const now = clock()
      await sql`delete from idp_codes where expires <= ${now}`
      await sql`insert into idp_codes (code_hash, account_id, sid, expires) values (${hashSecret(code)}, ${accountId}, ${sid}, ${now + CODE_MS})`
      return code
    },

    /**
     * A one-time login code that carries a failure's reason instead of an account: the exchange
     * answers the reason as its error, which the services show on their failure page.
     */
    async issueFailure(reason: string): Promise<string> {
      const code = randomToken(24)
      const now = clock()
      await sql`delete from idp_codes where expires <= ${now}`
      await sql`insert into idp_codes (code_hash, failure, expires) values (${hashSecret(code)}, ${reason}, ${now + CODE_MS})`
      return code
    },

    /**
     * Takes a login code (it works once): its enabled account, or the failure it carries; null
     * when unknown, used or expired.
     */
    async takeCode(
      code: string,
    ): Promise<{ account: Account; sid: string | null } | { failure: string } | null> {
      if (code === '' || code.length > 100) return null
      const [taken] = await sql<
        { account_id: string | null; failure: string | null; sid: string | null; expires: number }[]
      >`
        delete from idp_codes where code_hash = ${hashSecret(code)} returning account_id, failure, sid, expires`
      if (!taken || Number(taken.expires) <= clock()) return null
      if (taken.failure !== null) return { failure: taken.failure }
      const found = await byId(taken.account_id!)
      return found && !found.disabled ? { account: found, sid: taken.sid } : null
    },

    /** The account an OpenID Connect identity (issuer, subject) is linked to, or null. */
    async byIdentity(issuer: string, subject: string): Promise<Account | null> {
      return one(
        await sql<AccountRow[]>`
        select a.* from idp_oidc_identities i join idp_accounts a on a.id = i.account_id
        where i.issuer = ${issuer} and i.subject = ${subject}`,
      )
    },

    /** The issuers whose identities are linked to the account. */
    async identitiesOf(accountId: string): Promise<string[]> {
      const rows = await sql<
        { issuer: string }[]
      >`select issuer from idp_oidc_identities where account_id = ${accountId} order by issuer`
      return rows.map((r) => r.issuer)
    },

    /** The accounts linked to an identity of `issuer` (the owner's people list). */
    async linkedAccounts(issuer: string): Promise<Set<string>> {
      const rows = await sql<
        { account_id: string }[]
      >`select account_id from idp_oidc_identities where issuer = ${issuer}`
      return new Set(rows.map((r) => r.account_id))
    },

    /**
     * Makes an account for a first sign-in through an OpenID Connect provider, linked to the
     * identity, with no password. `owner: true` makes the owner, refused once any account
     * exists. The sign-in name is `name`, or `name` with a number after it when that is taken.
     */
    async createForIdentity(input: {
      issuer: string
      subject: string
      name: string
      owner: boolean
      place?: SignUpPlace
    }): Promise<CreateResult> {
      const now = clock()
      for (let attempt = 1; attempt <= 20; attempt++) {
        const name = attempt === 1 ? input.name : `${input.name.slice(0, 95)} ${attempt}`
        try {
          const made = await sql.begin(async (tx) => {
            if (input.place && !(await input.place(tx))) return 'place taken' as const
            const rows = input.owner
              ? await tx<AccountRow[]>`
                  insert into idp_accounts (id, name, name_key, display_name, password_hash, is_owner, created)
                  select ${recordId()}, ${name}, ${nameKey(name)}, ${input.name}, '', true, ${now}
                  where not exists (select 1 from idp_accounts)
                  returning *`
              : await tx<AccountRow[]>`
                  insert into idp_accounts (id, name, name_key, display_name, password_hash, created)
                  values (${recordId()}, ${name}, ${nameKey(name)}, ${input.name}, '', ${now})
                  returning *`
            if (rows.length === 0) return null
            await tx`insert into idp_oidc_identities (issuer, subject, account_id, created) values (${input.issuer}, ${input.subject}, ${rows[0]!.id}, ${now})`
            return account(rows[0]!)
          })
          if (made === 'place taken') return refuse(409, PLACE_TAKEN)
          return made === null ? refuse(409, OWNER_EXISTS) : { ok: true, account: made }
        } catch (err) {
          const constraint = (err as { constraint_name?: string }).constraint_name
          if (constraint === 'idp_accounts_name') continue
          if (constraint === 'idp_accounts_one_owner') return refuse(409, OWNER_EXISTS)
          if (constraint === 'idp_oidc_identities_pkey') return refuse(409, NAME_TAKEN)
          throw err
        }
      }
      return refuse(409, NAME_TAKEN)
    },

    /** A one-time link the owner gives a person so they link their identity to their account. */
    async createIdentityLink(accountId: string): Promise<string> {
      const id = randomToken(24)
      await sql.begin(async (tx) => {
        await tx`delete from idp_oidc_links where account_id = ${accountId} or expires <= ${clock()}`
        await tx`insert into idp_oidc_links (id_hash, account_id, expires) values (${hashSecret(id)}, ${accountId}, ${clock() + RESET_MS})`
      })
      return id
    },

    /** The enabled account an identity link is for, without taking it; null when unknown or expired. */
    async identityLinkAccount(id: string): Promise<Account | null> {
      if (id === '' || id.length > 100) return null
      return one(
        await sql<AccountRow[]>`
        select a.* from idp_oidc_links l join idp_accounts a on a.id = l.account_id
        where l.id_hash = ${hashSecret(id)} and l.expires > ${clock()} and not a.disabled`,
      )
    },

    /**
     * Links the identity to the account of an identity link, taking the link: the account, or
     * why not (`link_used` when it is used up or expired, `identity_taken` when the identity
     * belongs to another account). An earlier identity of the same issuer is replaced.
     */
    async useIdentityLink(
      id: string,
      issuer: string,
      subject: string,
    ): Promise<{ ok: true; account: Account } | Refusal> {
      if (id === '' || id.length > 100) return refuse(400, LINK_USED)
      return sql.begin(async (tx) => {
        const [taken] = await tx<{ account_id: string }[]>`
          delete from idp_oidc_links where id_hash = ${hashSecret(id)} and expires > ${clock()} returning account_id`
        if (!taken) return refuse(400, LINK_USED)
        const [other] = await tx<
          { account_id: string }[]
        >`select account_id from idp_oidc_identities where issuer = ${issuer} and subject = ${subject}`
        if (other && other.account_id !== taken.account_id) return refuse(409, IDENTITY_TAKEN)
        await tx`delete from idp_oidc_identities where account_id = ${taken.account_id} and issuer = ${issuer}`
        await tx`insert into idp_oidc_identities (issuer, subject, account_id, created) values (${issuer}, ${subject}, ${taken.account_id}, ${clock()})`
        const [row] = await tx<
          AccountRow[]
        >`select * from idp_accounts where id = ${taken.account_id} and not disabled`
        return row ? { ok: true as const, account: account(row) } : refuse(400, LINK_USED)
      })
    },

    /** A sign-up link's secret, good for `uses` sign-ups within `days`. */
    async createSignupLink(uses: number, days: number): Promise<string> {
      const id = randomToken(24)
      const now = clock()
      await sql`insert into idp_signup_links (id_hash, uses_left, expires, created) values (${hashSecret(id)}, ${uses}, ${now + days * 86_400_000}, ${now})`
      return id
    },

    /** True when the sign-up link has a use left and has not expired. */
    async signupLinkValid(id: string): Promise<boolean> {
      if (id === '' || id.length > 100) return false
      const [row] =
        await sql`select 1 from idp_signup_links where id_hash = ${hashSecret(id)} and uses_left > 0 and expires > ${clock()}`
      return row !== undefined
    },

    /** Takes one use of a sign-up link; false when none is left or it expired. */
    async useSignupLink(id: string): Promise<boolean> {
      if (id === '' || id.length > 100) return false
      const rows =
        await sql`update idp_signup_links set uses_left = uses_left - 1 where id_hash = ${hashSecret(id)} and uses_left > 0 and expires > ${clock()} returning 1`
      return rows.length === 1
    },

    /** The live sign-up links, newest first, without their secrets (`id` is the stored hash, which opens nothing). */
    async signupLinks(): Promise<
      { id: string; created: number; usesLeft: number; expires: number }[]
    > {
      const rows = await sql<
        { id_hash: string; created: number; uses_left: number; expires: number }[]
      >`
        select id_hash, created, uses_left, expires from idp_signup_links where uses_left > 0 and expires > ${clock()} order by created desc limit 50`
      return rows.map((r) => ({
        id: r.id_hash,
        created: Number(r.created),
        usesLeft: r.uses_left,
        expires: Number(r.expires),
      }))
    },

    /** Revokes a live sign-up link by its stored hash: it has no use left from now on. */
    async revokeSignupLink(idHash: string): Promise<boolean> {
      if (idHash === '' || idHash.length > 100) return false
      const rows =
        await sql`update idp_signup_links set uses_left = 0 where id_hash = ${idHash} and uses_left > 0 and expires > ${clock()} returning 1`
      return rows.length === 1
    },

    /** A one-time reset link's secret for the account (an older one stops working). */
    async createResetLink(accountId: string): Promise<string> {
      const id = randomToken(24)
      await sql.begin(async (tx) => {
        await tx`delete from idp_reset_links where account_id = ${accountId} or expires <= ${clock()}`
        await tx`insert into idp_reset_links (id_hash, account_id, expires) values (${hashSecret(id)}, ${accountId}, ${clock() + RESET_MS})`
      })
      return id
    },

    /** The enabled account a reset link is for, without taking it; null when unknown or expired. */
    async resetLinkAccount(id: string): Promise<Account | null> {
      if (id === '' || id.length > 100) return null
      return one(
        await sql<AccountRow[]>`
        select a.* from idp_reset_links r join idp_accounts a on a.id = r.account_id
        where r.id_hash = ${hashSecret(id)} and r.expires > ${clock()} and not a.disabled`,
      )
    },

    /**
     * Sets the password through a reset link, taking the link and ending every session of the
     * account, provider's and services', and its tracker tokens; null when the link no longer works.
     */
    async resetPassword(id: string, passwordHash: string): Promise<Account | null> {
      if (id === '' || id.length > 100) return null
      return sql.begin(async (tx) => {
        const [taken] = await tx<{ account_id: string }[]>`
          delete from idp_reset_links where id_hash = ${hashSecret(id)} and expires > ${clock()} returning account_id`
        if (!taken) return null
        const rows = await tx<
          AccountRow[]
        >`update idp_accounts set password_hash = ${passwordHash} where id = ${taken.account_id} and not disabled returning *`
        if (rows.length === 0) return null
        // A reset may follow a stolen password: every session ends, and the user tokens too.
        await endSessions(tx, taken.account_id)
        for (const h of hooks) await h.onPasswordReset?.(tx, taken.account_id)
        return account(rows[0]!)
      })
    },

    /**
     * A link that confirms `email` for the account once it is opened (24 hours, once); an older
     * link of the account stops working. The account's confirmed address stays until then.
     */
    async createEmailLink(accountId: string, email: string): Promise<string> {
      const id = randomToken(24)
      await sql.begin(async (tx) => {
        await tx`delete from idp_email_links where account_id = ${accountId} or expires <= ${clock()}`
        await tx`insert into idp_email_links (id_hash, account_id, email, expires) values (${hashSecret(id)}, ${accountId}, ${email}, ${clock() + EMAIL_LINK_MS})`
      })
      return id
    },

    /** The address waiting for its link to be opened, or null. */
    async pendingEmail(accountId: string): Promise<string | null> {
      const [row] = await sql<{ email: string }[]>`
        select email from idp_email_links where account_id = ${accountId} and expires > ${clock()}`
      return row?.email ?? null
    },

    /** The enabled account and address a confirmation link is for, without taking it; null when unknown or expired. */
    async emailLink(id: string): Promise<{ account: Account; email: string } | null> {
      if (id === '' || id.length > 100) return null
      const [row] = await sql<(AccountRow & { link_email: string })[]>`
        select a.*, l.email as link_email from idp_email_links l join idp_accounts a on a.id = l.account_id
        where l.id_hash = ${hashSecret(id)} and l.expires > ${clock()} and not a.disabled`
      return row ? { account: account(row), email: row.link_email } : null
    },

    /**
     * Takes a confirmation link: its address becomes the account's confirmed one, and every
     * service is told in the same transaction (the tracker mails it from its next mail on).
     * Null when the link no longer works.
     */
    async confirmEmail(id: string): Promise<{ account: Account; email: string } | null> {
      if (id === '' || id.length > 100) return null
      return sql.begin(async (tx) => {
        const [taken] = await tx<{ account_id: string; email: string }[]>`
          delete from idp_email_links where id_hash = ${hashSecret(id)} and expires > ${clock()} returning account_id, email`
        if (!taken) return null
        const [row] = await tx<AccountRow[]>`
          select * from idp_accounts where id = ${taken.account_id} and not disabled`
        if (!row) return null
        await setEmail(tx, taken.account_id, taken.email)
        return { account: account({ ...row, email: taken.email }), email: taken.email }
      })
    },

    /** Removes the account's address, confirmed or waiting: it gets no more mail. */
    async removeEmail(accountId: string): Promise<void> {
      await sql.begin(async (tx) => {
        await tx`delete from idp_email_links where account_id = ${accountId}`
        await setEmail(tx, accountId, null)
      })
    },

    /**
     * An address an organisation's provider says it verified: taken as confirmed when it differs
     * from the account's.
     */
    async setVerifiedEmail(accountId: string, email: string): Promise<void> {
      await sql.begin(async (tx) => {
        const [row] = await tx<{ email: string | null }[]>`
          select email from idp_accounts where id = ${accountId} for update`
        if (row && row.email !== email) await setEmail(tx, accountId, email)
      })
    },

    /** Enabled accounts with a password whose confirmed address is `email` (any case), at most 5. */
    async byEmail(email: string): Promise<Account[]> {
      if (email === '' || email.length > 254) return []
      return (
        await sql<AccountRow[]>`
        select * from idp_accounts where lower(email) = lower(${email}) and not disabled and password_hash <> ''
        order by created limit 5`
      ).map(account)
    },

    async openSignup(): Promise<boolean> {
      const [row] = await sql<
        { value: string }[]
      >`select value from settings where key = ${OPEN_SIGNUP_KEY}`
      return row?.value === 'on'
    },

    async setOpenSignup(on: boolean): Promise<void> {
      await sql`insert into settings (key, value) values (${OPEN_SIGNUP_KEY}, ${on ? 'on' : 'off'})
        on conflict (key) do update set value = excluded.value`
    },
  }
}
