/**
 * The text colour of a label's chip, chosen for its background: black or white, whichever
 * contrasts more with it by WCAG 2's formula (the one axe-core's contrast rule checks). The
 * better of the two is never below 4.58:1, above the 4.5:1 that text needs, so every label
 * colour gives a readable chip; the chip's colours are the same in the light and dark themes.
 * The pages and the browser script share it.
 */

/** The relative luminance of `#rrggbb` (WCAG 2.x). */
export function luminance(color: string): number {
  const channel = (i: number) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

/** The contrast ratio of two colours `#rrggbb`, from 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

/** `#000000` or `#ffffff`, whichever reads better on `background` (`#rrggbb`). */
export function labelTextColor(background: string): string {
  return contrast(background, '#000000') >= contrast(background, '#ffffff') ? '#000000' : '#ffffff'
}
