/**
 * Writes an import file (docs/tickets-api.md, "Importing tickets") of `tickets` tickets with
 * `comments` comments each, a ticket at a time, so a file of any size is written in little
 * memory. Old numbers start at `firstNumber` and run downwards through the file (the import
 * numbers tickets by old number, so the file's order is the reverse); every tenth ticket has
 * the one before as parent, every twentieth is blocked by the one two before.
 */
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'

export interface ImportFileOptions {
  slug: string
  admin: string
  tickets: number
  firstNumber: number
  comments?: number
  /** Characters of summary a ticket carries. */
  summary?: number
}

export async function writeImportFile(path: string, o: ImportFileOptions): Promise<number> {
  const out = createWriteStream(path)
  let bytes = 0
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text)
    if (!out.write(text)) await once(out, 'drain')
  }
  const filler = 'Steps to see it, what was expected, what was seen. '
    .repeat(Math.ceil((o.summary ?? 60) / 52))
    .slice(0, o.summary ?? 60)
  await write(`{"tickets": [\n`)
  for (let i = o.tickets - 1; i >= 0; i--) {
    const number = o.firstNumber + i
    const ticket: Record<string, unknown> = {
      number,
      subject: `Imported ticket ${number} about something that needs doing`,
      summary: filler,
      state: ['open', 'doing', 'review', 'done', 'dropped'][i % 5],
      author: i % 2 === 0 ? o.admin : `Old Person ${i % 50}`,
      created: 1_500_000_000_000 + i * 60_000,
      comments: Array.from({ length: o.comments ?? 1 }, (_, j) => ({
        author: `Old Person ${(i + j) % 50}`,
        text: `Comment ${j} on ticket ${number}`,
        created: 1_500_000_000_000 + i * 60_000 + j,
      })),
    }
    if (i % 10 === 9) ticket.parent = number - 1
    if (i % 20 === 19) ticket.blockedBy = [number - 2]
    await write(`${JSON.stringify(ticket)}${i > 0 ? ',' : ''}\n`)
  }
  // The project comes last: a file's keys may come in any order.
  await write(`], "project": ${JSON.stringify({ slug: o.slug, title: o.slug, admin: o.admin })}}\n`)
  out.end()
  await once(out, 'finish')
  return bytes
}
