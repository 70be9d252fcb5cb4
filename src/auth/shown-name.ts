/**
 * How the apps name the signed-in person wherever they say who you are (docs/core.md, "Login
 * CSRF"): the display name, which anyone may choose and which may repeat, and beside it the
 * account's unique sign-in name when the provider sends one (`login`) and it reads differently,
 * so a display name cannot pass for another person's: bob renamed "owner" shows as "owner (bob)".
 */
export function shownName(name: string, login: unknown): string {
  if (typeof login !== 'string' || login === '' || login.toLowerCase() === name.toLowerCase()) return name
  return `${name} (${login})`
}
