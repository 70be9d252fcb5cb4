import { readFileSync, readdirSync } from 'node:fs'
import { benchDatabase } from '../bench/support.ts'
const database = await benchDatabase(10)
const { sql } = database
await sql.unsafe(`create table notes2 (like notes including defaults including constraints); alter table notes2 add primary key (user_id, id)`)
function pgTicks(): number {
  let t = 0
  for (const p of readdirSync('/proc')) { if (!/^\d+$/.test(p)) continue; try { const comm = readFileSync(`/proc/${p}/comm`, 'utf8').trim(); if (comm !== 'postgres') continue; const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' '); t += Number(f[11]) + Number(f[12]) } catch {} }
  return t
}
const text = (n: number) => `Shopping list ${n}\n- milk\n- bread\n- eggs\n- coffee, the good one\nCall the plumber about the kitchen tap.\n`
const N = 8000
const variants: Record<string, (u: string, n: number) => Promise<unknown>> = {
  upsert: (u, n) => sql`insert into bench_upserts (user_id, id, text, edited) values (${u}, 'bench', ${text(n)}, ${Date.now()}) on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited`,
  clock: (u) => sql`insert into note_clocks (user_id, last_edited) values (${u}, ${Date.now()}) on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1) returning last_edited`,
  clockUpd: (u) => sql`update note_clocks set last_edited = greatest(${Date.now()}::bigint, last_edited + 1) where user_id = ${u} returning last_edited`,
  full: (u, n) => sql`
      with clock as (
        insert into note_clocks (user_id, last_edited) values (${u}, ${Date.now()})
        on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
        returning last_edited
      ), saved as (
        insert into notes (user_id, id, text, created, edited, gone)
        select ${u}, 'bench', ${text(n)}, last_edited, last_edited, false from clock
        on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false
        returning edited
      ), revision as (
        insert into note_revisions (user_id, note_id, edited, text, at, local)
        select ${u}, 'bench', edited, ${text(n)}, ${Date.now()}, 'bench' from saved
      )
      select edited from saved`,
  fullNoIdx: (u, n) => sql`
      with clock as (
        insert into note_clocks (user_id, last_edited) values (${u}, ${Date.now()})
        on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
        returning last_edited
      ), saved as (
        insert into notes2 (user_id, id, text, created, edited, gone)
        select ${u}, 'bench', ${text(n)}, last_edited, last_edited, false from clock
        on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false
        returning edited
      ), revision as (
        insert into note_revisions (user_id, note_id, edited, text, at, local)
        select ${u}, 'bench2', edited, ${text(n)}, ${Date.now()}, 'bench' from saved
      )
      select edited from saved`,
  noRev: (u, n) => sql`
      with clock as (
        insert into note_clocks (user_id, last_edited) values (${u}, ${Date.now()})
        on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
        returning last_edited
      ), saved as (
        insert into notes (user_id, id, text, created, edited, gone)
        select ${u}, 'bench3', ${text(n)}, last_edited, last_edited, false from clock
        on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false
        returning edited
      )
      select edited from saved`,
}
await sql`create table bench_upserts (user_id text, id text, text text not null, edited bigint not null, primary key (user_id, id))`
const results: Record<string, number[]> = {}
for (let r = 0; r < 3; r++) for (const [name, one] of Object.entries(variants)) {
  const pg0 = pgTicks(); const t0 = performance.now(); let next = 0
  await Promise.all([0,1,2,3,4,5,6,7].map(async (w) => { while (next < N) await one(`${name}-${w}`, next++) }))
  const pg = (pgTicks() - pg0) * 10 / N * 1000
  ;(results[name] ??= []).push(Math.round(pg))
}
for (const [k, v] of Object.entries(results)) console.log(k.padEnd(10), v.join(' '), 'µs pg/op')
await database.close()
