/**
 * Line-based three-way merge of a note's text (docs/notes-api.md, "Saves"): the text at `base`, the
 * stored text and the sent text.
 *
 * The two-way diffs come from node-diff3 (`diffIndices`, Hunt–McIlroy LCS over lines). The
 * three-way step is ours, because node-diff3's `diff3Merge` follows GNU diff3 and calls two
 * edits a conflict when they merely touch (an edit of line 3 against an edit of line 4). For
 * notes that would make a copy each time the phone ticks one list item and the laptop the next.
 * Here only edits that share a line of the base text collide, plus an insertion that falls
 * strictly inside the other side's changed lines. Two insertions at the same place both stay:
 * their common lines once, the stored side's lines before the sent side's.
 *
 * Lines keep their own line end (`\n`, `\r\n` or none on the last line), so a merge never loses
 * or changes a line end.
 *
 * @module
 */
import { diffComm, diffIndices } from 'node-diff3'

/** The outcome of {@link mergeText}: the merged text, or a collision (the caller keeps both texts). */
export type MergeResult = { ok: true; text: string } | { ok: false }

// node-diff3's LCS scans its candidate list once for every pair of equal lines, so it costs
// about (pairs of equal lines + lines) × (lines of the shorter side) steps: cubic on texts with
// many repeated lines (a thousand blank lines on each side take seconds). Past this budget,
// a small fraction of a second, the save is answered as a collision instead: both texts are
// kept, nothing is lost, and no request holds the event loop for seconds.
const MAX_DIFF_STEPS = 50_000_000

/** One side's change to the base: base lines [start, end) become `lines`. */
interface Hunk {
  side: 'stored' | 'sent'
  start: number
  end: number
  lines: string[]
}

/**
 * Merges the changes from `base` to `stored` with those from `base` to `sent`.
 * Identical texts always merge; so do changes that share no base line.
 */
export function mergeText(base: string, stored: string, sent: string): MergeResult {
  if (stored === sent || sent === base) return { ok: true, text: stored }
  if (stored === base) return { ok: true, text: sent }
  const o = splitLines(base)
  const storedHunks = hunks(o, splitLines(stored), 'stored')
  const sentHunks = hunks(o, splitLines(sent), 'sent')
  if (storedHunks === null || sentHunks === null) return { ok: false }
  const all = [...storedHunks, ...sentHunks].sort((x, y) => x.start - y.start || x.end - y.end)

  const out: string[] = []
  let pos = 0
  let i = 0
  while (i < all.length) {
    const first = all[i]!
    const region: Hunk[] = [first]
    const start = first.start
    let end = first.end
    for (i++; i < all.length; i++) {
      const next = all[i]!
      const inside = next.start < end
      const samePlaceInsertions = next.start === start && end === start && next.end === next.start
      if (!inside && !samePlaceInsertions) break
      region.push(next)
      end = Math.max(end, next.end)
    }
    push(out, o, pos, start)
    const resolved = resolve(o, region, start, end)
    if (resolved === null) return { ok: false }
    push(out, resolved, 0, resolved.length)
    pos = end
  }
  push(out, o, pos, o.length)
  return { ok: true, text: out.join('') }
}

/** Splits a text into lines, each with its own line end; '' has no lines. */
export function splitLines(text: string): string[] {
  const lines: string[] = []
  let from = 0
  for (;;) {
    const nl = text.indexOf('\n', from)
    if (nl === -1) break
    lines.push(text.slice(from, nl + 1))
    from = nl + 1
  }
  if (from < text.length) lines.push(text.slice(from))
  return lines
}

/** The lines of one region of the base that one or both sides changed, or null for a collision. */
function resolve(o: string[], region: Hunk[], start: number, end: number): string[] | null {
  const stored = region.filter((h) => h.side === 'stored')
  const sent = region.filter((h) => h.side === 'sent')
  if (sent.length === 0) return apply(o, stored, start, end)
  if (stored.length === 0) return apply(o, sent, start, end)
  const a = apply(o, stored, start, end)
  const b = apply(o, sent, start, end)
  if (sameLines(a, b)) return a
  // Only two insertions at one place reach here without sharing a base line.
  if (start === end) return union(a, b)
  return null
}

/** The base lines [start, end) with one side's hunks of the region applied. */
function apply(o: string[], side: Hunk[], start: number, end: number): string[] {
  const out: string[] = []
  let pos = start
  for (const h of side) {
    push(out, o, pos, h.start)
    push(out, h.lines, 0, h.lines.length)
    pos = h.end
  }
  push(out, o, pos, end)
  return out
}

/** Both insertions: their common lines once, otherwise the stored side's lines first. */
function union(a: string[], b: string[]): string[] | null {
  if (diffSteps(a, b) > MAX_DIFF_STEPS) return null
  const out: string[] = []
  for (const part of diffComm(a, b)) {
    if (part.common) out.push(...part.common)
    else out.push(...part.buffer1, ...part.buffer2)
  }
  return out
}

/**
 * The changes from `o` to `x` as hunks, or null when the differing middle is too large to diff.
 * The common first and last lines are set aside before the LCS: most saves change a few lines
 * of a note, so the LCS sees only those.
 */
function hunks(o: string[], x: string[], side: Hunk['side']): Hunk[] | null {
  let head = 0
  while (head < o.length && head < x.length && o[head] === x[head]) head++
  let tail = 0
  while (
    tail < o.length - head &&
    tail < x.length - head &&
    o[o.length - 1 - tail] === x[x.length - 1 - tail]
  )
    tail++
  const oMiddle = o.slice(head, o.length - tail)
  const xMiddle = x.slice(head, x.length - tail)
  if (oMiddle.length === 0 || xMiddle.length === 0) {
    if (oMiddle.length === 0 && xMiddle.length === 0) return []
    return [{ side, start: head, end: head + oMiddle.length, lines: xMiddle }]
  }
  if (diffSteps(oMiddle, xMiddle) > MAX_DIFF_STEPS) return null
  return diffIndices(oMiddle, xMiddle).map((d) => ({
    side,
    start: head + d.buffer1[0],
    end: head + d.buffer1[0] + d.buffer1[1],
    lines: d.buffer2Content,
  }))
}

/** The estimated cost of node-diff3's LCS of `a` and `b` (see {@link MAX_DIFF_STEPS}). */
function diffSteps(a: string[], b: string[]): number {
  const counts = new Map<string, number>()
  for (const line of b) counts.set(line, (counts.get(line) ?? 0) + 1)
  let pairs = 0
  for (const line of a) pairs += counts.get(line) ?? 0
  return (pairs + a.length) * Math.min(a.length, b.length)
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i])
}

function push(out: string[], from: string[], start: number, end: number): void {
  for (let i = start; i < end; i++) out.push(from[i]!)
}
