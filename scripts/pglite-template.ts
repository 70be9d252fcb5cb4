/**
 * `npm run pglite-template`: makes `pglite-template/pglite-<version>.tar.gz`, the empty database a
 * first start on the embedded database unpacks instead of running initdb (src/db/embedded.ts,
 * docs/operations.md "Memory"). Run it after upgrading `@electric-sql/pglite` and commit the
 * file; remove the old version's. It needs about 0.8 GB of memory for a few seconds, once.
 */
import { writeFile } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { START_PARAMS, TEMPLATE } from '../src/db/embedded.ts'

const db = await PGlite.create(undefined, { startParams: START_PARAMS })
const dump = await db.dumpDataDir('gzip')
await db.close()
await writeFile(TEMPLATE, new Uint8Array(await dump.arrayBuffer()))
console.log(`wrote ${TEMPLATE} (${dump.size} bytes)`)
