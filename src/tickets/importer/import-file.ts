/**
 * An import file read as a stream (docs/tickets-api.md, "Importing tickets"): the top-level
 * object's `project` and, one at a time, the elements of its `tickets` array, so a file of any
 * size is read in the memory of one ticket and the parser's buffer. The keys may come in any
 * order; other keys are skipped.
 *
 * The tokens come from stream-json's parser; one ticket at a time is put together by its
 * Assembler, which builds values as `JSON.parse` does.
 */
import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { jsonParser } from 'stream-json/parser.js'
import Assembler from 'stream-json/assembler.js'
import { getManyValues, isMany, none } from 'stream-chain/defs.js'

/** What a file holds, in the order the file holds it; `ticketsNotList` also when there is no `tickets`. */
export type ImportPart =
  | { kind: 'notObject' }
  | { kind: 'project'; value: unknown }
  | { kind: 'ticketsNotList' }
  | { kind: 'ticket'; index: number; value: unknown }

/** Something an import can read from the start as often as it needs: a file, or a parsed value. */
export type ImportSource = () => AsyncIterable<ImportPart>

/** An import source over a file, parsed as it is read; invalid JSON throws {@link BadJson}. */
export function fileSource(path: string): ImportSource {
  return () => parts(createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 }))
}

/** An import source over a value already parsed. */
export function valueSource(data: unknown): ImportSource {
  return async function* () {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      yield { kind: 'notObject' }
      return
    }
    const record = data as Record<string, unknown>
    if ('project' in record) yield { kind: 'project', value: record.project }
    if (!Array.isArray(record.tickets)) {
      yield { kind: 'ticketsNotList' }
      return
    }
    for (const [index, value] of record.tickets.entries()) yield { kind: 'ticket', index, value }
  }
}

/** The file is not JSON; the message says where (the parser's words). */
export class BadJson extends Error {}

type Token = { name: string; value?: unknown }

const OPENS = new Set(['startObject', 'startArray'])
const CLOSES = new Set(['endObject', 'endArray'])
const SCALARS = new Set(['stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue'])

/**
 * The parser's tokens, a chunk of text at a time. The parser is called as a function rather
 * than piped as a stream: a stream in object mode costs more per token than the parsing does.
 */
async function* tokensOf(input: Readable): AsyncGenerator<Token[]> {
  // Packed values only: a key, a string or a number comes as one token.
  const parse = jsonParser({ streamValues: false })
  let first = true
  for await (const chunk of input) {
    // A byte-order mark, which some exporters write first, is not JSON's: dropped.
    const text =
      first && (chunk as string).startsWith('\uFEFF')
        ? (chunk as string).slice(1)
        : (chunk as string)
    first = false
    const out = parse(text)
    if (isMany(out)) yield getManyValues(out) as Token[]
  }
  const out = parse(none as never)
  if (isMany(out)) yield getManyValues(out) as Token[]
}

async function* parts(input: Readable): AsyncGenerator<ImportPart> {
  // `depth` counts the open objects and arrays; at 1 we are in the top-level object.
  let depth = 0
  let key: string | null = null
  let inTickets = false
  let sawTickets = false
  let index = 0
  let building: Assembler | null = null
  let buildingProject = false
  try {
    for await (const chunk of tokensOf(input))
      for (const token of chunk) {
        if (building) {
          building.consume(token as never)
          if (OPENS.has(token.name)) depth++
          else if (CLOSES.has(token.name)) depth--
          if (building.done) {
            yield buildingProject
              ? { kind: 'project', value: building.current }
              : { kind: 'ticket', index: index++, value: building.current }
            building = null
          }
          continue
        }
        if (depth === 0) {
          if (token.name !== 'startObject') {
            yield { kind: 'notObject' }
            return
          }
          depth = 1
          continue
        }
        if (depth === 1 && token.name === 'keyValue') {
          key = token.value as string
          continue
        }
        if (depth === 1 && token.name === 'endObject') {
          depth = 0
          continue
        }
        if (depth === 1 && key === 'project') {
          key = null
          buildingProject = true
          building = startValue(token)
          if (OPENS.has(token.name)) depth++
          if (building.done) {
            yield { kind: 'project', value: building.current }
            building = null
          }
          continue
        }
        if (depth === 1 && key === 'tickets') {
          key = null
          sawTickets = true
          if (token.name === 'startArray') {
            inTickets = true
            depth = 2
          } else {
            yield { kind: 'ticketsNotList' }
            if (OPENS.has(token.name)) depth++
          }
          continue
        }
        if (depth === 2 && inTickets) {
          if (token.name === 'endArray') {
            inTickets = false
            depth = 1
            continue
          }
          buildingProject = false
          building = startValue(token)
          if (OPENS.has(token.name)) depth++
          if (building.done) {
            yield { kind: 'ticket', index: index++, value: building.current }
            building = null
          }
          continue
        }
        // A value of another key, or inside one: skipped.
        if (OPENS.has(token.name)) depth++
        else if (CLOSES.has(token.name)) depth--
        else if (depth === 1 && SCALARS.has(token.name)) key = null
      }
    if (!sawTickets) yield { kind: 'ticketsNotList' }
  } catch (err) {
    throw new BadJson((err as Error).message)
  } finally {
    input.destroy()
  }
}

function startValue(token: Token): Assembler {
  const assembler = new Assembler()
  assembler.consume(token as never)
  return assembler
}
