/**
 * The one normalisation of sign-in names (docs/core.md, "Identity provider"): what makes two
 * names the same account. The database's unique index (`idp_accounts.name_key`), the lookup at
 * sign-in and the sign-in limits all use {@link nameKey}, made here in one place, so no spelling
 * can reach an account that another part reads as a different name: `alİce` is not `alice`.
 */

/**
 * The key of a sign-in name: Unicode NFKC (compatibility forms folded: `ａｌｉｃｅ` is `alice`),
 * then lower case by Unicode's locale-free rules, then NFKC again (lower-casing can undo it).
 * `İ` (U+0130) lowers to `i` and a combining dot above, so it never names an `i`.
 */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().normalize('NFKC')
}

/** A name as typed, in the form it is kept: trimmed, and in NFKC. */
export function cleanName(name: string): string {
  return name.normalize('NFKC').trim()
}
