/**
 * The provider's cookie names. On an https address each gets the `__Host-` prefix, which a
 * browser accepts only from a secure origin with `Secure`, `Path=/` and no `Domain`: a sibling
 * subdomain or a plain-http page of the same host cannot set or overwrite it (a planted
 * `idp_browser` or `idp_session` cookie, say).
 */
export function cookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base
}
