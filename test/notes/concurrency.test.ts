import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService } from './support.ts'

// Ten pooled connections, so saves really run side by side on a PostgreSQL server.
const app = await notesService({ max: 10 })
const cookie = await app.signIn('busy-user')

async function create(id: string, text: string): Promise<number> {
  const res = await app.post(cookie, { op: 'save', id, local: 'setup', text, base: 0, at: 1 })
  assert.equal(res.status, 200)
  return res.json.edited
}

/** Every live note of the user: id → text. */
async function allTexts(): Promise<Map<string, string>> {
  const list = await app.call('GET', '/api/notes', { cookie })
  const texts = new Map<string, string>()
  for (const row of list.json.notes as { id: string; gone: boolean }[]) {
    if (row.gone) continue
    texts.set(
      row.id,
      (await app.call('GET', `/api/notes?id=${encodeURIComponent(row.id)}`, { cookie })).json.text,
    )
  }
  return texts
}

test('50 saves of one note in parallel from the same base lose no text: each is in the note or in a copy', async () => {
  const base = await create('shared', 'title\n')
  const sent = Array.from({ length: 50 }, (_, i) => `title from device ${i}\n`)
  const answers = await Promise.all(
    sent.map((text, i) =>
      app.post(cookie, { op: 'save', id: 'shared', local: `device-${i}`, text, base, at: i }),
    ),
  )
  assert.deepEqual(
    answers.map((a) => a.status),
    sent.map(() => 200),
  )
  const texts = await allTexts()
  const stored = [...texts.values()]
  for (const text of sent) assert.ok(stored.includes(text), `'${text.trim()}' is kept`)
  assert.equal(
    answers.filter((a) => a.json.copy).length,
    49,
    'one save replaces, the other 49 collide',
  )
  const edits = answers.flatMap((a) => [a.json.copy?.edited ?? a.json.edited])
  assert.equal(new Set(edits).size, 50, 'every accepted save has an edited of its own')
})

test('50 saves of one note in parallel editing different lines all merge into the note, without copies', async () => {
  const lines = Array.from({ length: 50 }, (_, i) => `- [ ] item ${i}\n`)
  const base = await create('list', lines.join(''))
  const answers = await Promise.all(
    lines.map((line, i) => {
      const text = lines.map((l, j) => (j === i ? l.replace('[ ]', '[x]') : l)).join('')
      return app.post(cookie, { op: 'save', id: 'list', local: `device-${i}`, text, base, at: i })
    }),
  )
  assert.deepEqual(
    answers.map((a) => [a.status, a.json.copy]),
    lines.map(() => [200, undefined]),
  )
  const note = await app.call('GET', '/api/notes?id=list', { cookie })
  assert.equal(note.json.text, lines.map((l) => l.replace('[ ]', '[x]')).join(''))
})

test('a delete racing 20 saves from the same base never loses a sent text', async () => {
  const base = await create('raced', 'start\n')
  const sent = Array.from({ length: 20 }, (_, i) => `version ${i}\n`)
  const answers = await Promise.all([
    app.post(cookie, { op: 'delete', id: 'raced', base }),
    ...sent.map((text, i) =>
      app.post(cookie, { op: 'save', id: 'raced', local: `d${i}`, text, base, at: i }),
    ),
  ])
  assert.deepEqual(
    answers.map((a) => a.status),
    answers.map(() => 200),
  )
  const stored = [...(await allTexts()).values()]
  for (const text of sent) assert.ok(stored.includes(text), `'${text.trim()}' is kept`)
})
