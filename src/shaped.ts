/**
 * Statements whose text is built once per shape. A page's statement is put together from a
 * dozen postgres.js fragments (the context, a search, the list's order), and building them and
 * having postgres.js write them out as one text again on every request cost about 85 µs of the
 * 500 µs the statement cost the process, the collector's share included (docs/performance.md,
 * "The web app's pages", "statements built once per shape").
 *
 * Here the fragments are built once for each shape, with a {@link Slot} in place of every value
 * that differs between requests of that shape, and written out into the text and its values.
 * Later requests of the shape only fill the slots. What a statement depends on is therefore
 * either part of its shape's key or given through a slot: the build function must read nothing
 * else.
 *
 * The text is the one postgres.js writes for the same fragments (test/shaped.test.ts compares
 * them), so the statement is prepared and planned as it was.
 */
import type postgres from 'postgres'
import type { Query } from './db.ts'
import { keepNewest } from './kept.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** A value given each time the statement runs; `name` is its key in the values given. */
export class Slot {
  constructor(readonly name: string) {}
}

/** A statement written out: its text with `$1`, `$2`… and the value (or slot) of each. */
export interface Written {
  text: string
  values: unknown[]
}

/**
 * A slot as a fragment takes it. postgres.js's types take a string where a value goes; a slot
 * is never sent, but replaced by its value when the statement runs.
 */
export type SlotValue = string & { readonly slot: true }

/** The slots of `values`' keys, to build a shape's fragments with. */
export type Slots<V> = { readonly [K in keyof V]: SlotValue }

/** A table of statements built once per shape ({@link shapedStatements}). */
export type ShapedStatements = ReturnType<typeof shapedStatements>

/** Shapes kept: a page's few statements times the searches people repeat. */
export const SHAPES_KEPT = 500

/**
 * A table of statements built once per shape on `q`. `run(shape, values, build)` builds the
 * fragment of `shape` with `build` the first time (its slots named as `values`' keys), and
 * sends the written text with the slots filled from `values` every time. A statement whose
 * plan depends on its values (src/db.ts, `plannedEachTime`) is sent with `{ prepare: false }`.
 */
export function shapedStatements(q: Query, limit = SHAPES_KEPT) {
  const written = new Map<string, Written>()
  return {
    run<T extends readonly unknown[], V extends object>(shape: string, values: V, build: (slots: Slots<V>) => Fragment, options: { prepare?: boolean } = {}): Promise<T> {
      let statement = written.get(shape)
      if (statement === undefined) {
        const slots = Object.fromEntries(Object.keys(values).map((name) => [name, new Slot(name)])) as unknown as Slots<V>
        statement = writeOut(q, build(slots))
        keepNewest(written, shape, statement, limit)
      }
      const given = statement.values.map((value) => (value instanceof Slot ? values[value.name as keyof V] : value))
      return q.unsafe(statement.text, given as postgres.ParameterOrJSON<never>[], { prepare: options.prepare ?? true }) as unknown as Promise<T>
    },
    /** Shapes written so far (the tests look). */
    get size() {
      return written.size
    },
  }
}

/** What postgres.js keeps of a fragment: the text around its values, and the values. */
interface FragmentParts {
  strings: readonly string[]
  args: unknown[]
}

/** postgres.js's builder of `sql(list)` (as in `in ${sql(states)}`): writes its values itself. */
interface Builder {
  build(before: string, parameters: unknown[], types: unknown[], options: unknown): string
}

const isFragment = (value: unknown): value is FragmentParts =>
  value instanceof Promise && Array.isArray((value as Partial<FragmentParts>).strings) && Array.isArray((value as Partial<FragmentParts>).args)

const isBuilder = (value: unknown): value is Builder =>
  typeof value === 'object' && value !== null && value.constructor.name === 'Builder' && typeof (value as Partial<Builder>).build === 'function'

/**
 * `fragment` written out as postgres.js writes it when it sends it (its `stringify` in
 * src/types.js): fragments in place, a list of fragments each after a space, `sql(list)` by its
 * own builder, any other value as the next `$n`. Fails on what the pages do not use (an
 * identifier), rather than sending it as a value.
 */
export function writeOut(q: Query, fragment: Fragment): Written {
  const values: unknown[] = []
  // postgres.js numbers parameters by the length of its list of types; a builder pushes to both.
  const types: unknown[] = []
  const options = (q as unknown as { options: unknown }).options
  const piece = (before: string, value: unknown): string => {
    if (isFragment(value)) return walk(value)
    if (Array.isArray(value) && value.length > 0 && isFragment(value[0])) return value.map((f: FragmentParts) => ' ' + walk(f)).join('')
    if (isBuilder(value)) return value.build(before, values, types, options)
    if (typeof value === 'object' && value !== null && value.constructor.name === 'Identifier') throw new Error('a shaped statement takes no identifier')
    values.push(value)
    return '$' + types.push(0)
  }
  const walk = (f: FragmentParts): string => {
    let text = f.strings[0]!
    for (let i = 1; i < f.strings.length; i++) text += piece(text, f.args[i - 1]) + f.strings[i]
    return text
  }
  return { text: walk(fragment as unknown as FragmentParts), values }
}
