/**
 * The words of the history view: when each version was saved, precise enough to tell versions
 * apart, and which device wrote it.
 *
 * @module
 */

/** A version as the history shows it (`GET /api/notes/revisions`). */
export interface Version {
  edited: number
  local: string
  device: string | null
}

/**
 * When each version was saved: the date and the minute, and the seconds too for every version
 * that shares its minute with another, so no two read "3:04 PM" alike.
 */
export function versionTimes(
  times: readonly number[],
  options: { locale?: string; timeZone?: string } = {},
): string[] {
  const short = new Intl.DateTimeFormat(options.locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: options.timeZone,
  })
  const exact = new Intl.DateTimeFormat(options.locale, {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: options.timeZone,
  })
  const labels = times.map((t) => short.format(t))
  const count = new Map<string, number>()
  for (const label of labels) count.set(label, (count.get(label) ?? 0) + 1)
  return times.map((t, i) => (count.get(labels[i]!)! > 1 ? exact.format(t) : labels[i]!))
}

/** Which device wrote a version: "this device", the words the other device gave itself, or "another device". */
export function versionDevice(version: Version, thisDevice: string, named?: string): string {
  if (version.local === thisDevice) return named ? `this device (${named})` : 'this device'
  return version.device ?? 'another device'
}

/** Where this browser keeps the name its person gave the device (kept across sign-outs: it names the machine). */
export const DEVICE_NAME_KEY = 'notes-device-name'
/** The longest name a person gives a device (the save's `device` holds 64 characters). */
export const DEVICE_NAME_MAX = 30

/**
 * The words a save carries for its device: the person's name for it and, in brackets, its
 * browser and system ("Work laptop (Chrome on Linux)"), or those alone when it has no name.
 */
export function deviceWords(given: string | null, userAgent: string): string {
  const auto = deviceName(userAgent)
  const name = given?.replace(/\s+/g, ' ').trim().slice(0, DEVICE_NAME_MAX) ?? ''
  return name === '' ? auto : `${name} (${auto})`.slice(0, 64)
}

/**
 * A device's words for itself, from its browser's user agent: "Chrome on Android", "Safari on
 * iPhone", "Firefox on Linux". What cannot be told is left out ("Chrome", "a browser").
 */
export function deviceName(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /SamsungBrowser\//.test(userAgent)
      ? 'Samsung Internet'
      : /Firefox\/|FxiOS\//.test(userAgent)
        ? 'Firefox'
        : /Chrome\/|CriOS\//.test(userAgent)
          ? 'Chrome'
          : /Safari\//.test(userAgent)
            ? 'Safari'
            : null
  const system = /iPhone/.test(userAgent)
    ? 'iPhone'
    : /iPad/.test(userAgent)
      ? 'iPad'
      : /Android/.test(userAgent)
        ? 'Android'
        : /CrOS/.test(userAgent)
          ? 'ChromeOS'
          : /Windows/.test(userAgent)
            ? 'Windows'
            : /Mac OS X|Macintosh/.test(userAgent)
              ? 'Mac'
              : /Linux/.test(userAgent)
                ? 'Linux'
                : null
  if (browser && system) return `${browser} on ${system}`
  return browser ?? (system ? `a browser on ${system}` : 'a browser')
}
