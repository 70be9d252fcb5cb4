/**
 * How the apps name the signed-in person wherever they say who you are (docs/core.md, "Login
 * CSRF"): the display name, which anyone may choose and which may repeat, and beside it the
 * account's unique sign-in name when the provider sends one (`login`) and it reads differently,
 * so a display name cannot pass for another person's: bob renamed "owner" shows as "owner (bob)".
 */
export function shownName(name: string, login: unknown): string {
  if (typeof login !== 'string' || login === '' || login.toLowerCase() === name.toLowerCase())
    return name
  return `${name} (${login})`
}

/**
 * What the next page says after a login return switched the session from the person shown as
 * `before` to the one shown as `now` (both from {@link shownName}). When the two read the same
 * (an outside provider that sends no `login`, so two people can both be "owner"), it says that
 * another account signed in, so the switch is still seen.
 */
export function switchSentence(now: string, before: string): string {
  if (now.toLowerCase() === before.toLowerCase())
    return `You are now signed in as another account, also named ${now}.`
  return `You are now signed in as ${now}, no longer as ${before}.`
}
