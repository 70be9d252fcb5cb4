/**
 * The pages' cache of what is the same for everyone (src/tickets/store/page-cache.ts): it gives
 * back what a request needs only when it holds all of it, at the version it was read at, and a
 * read of another version replaces everything it holds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseQuery } from '../../src/tickets/rules/query.ts'
import { DEFAULT_FILTER, type State } from '../../src/tickets/rules/states.ts'
import {
  createPageCache,
  type ListRequest,
  type SharedParts,
} from '../../src/tickets/store/page-cache.ts'

const ask = (text: string): ListRequest => {
  const parsed = parseQuery(text)
  assert.ok(parsed.ok)
  return { query: parsed.query, search: { states: DEFAULT_FILTER, me: null }, limit: 50, skip: 0 }
}

const counts: Record<State, number> = { open: 1, doing: 0, review: 0, done: 0, dropped: 0 }

function parts(version: number, withList = true): SharedParts {
  return {
    version,
    switcher: [{ slug: 'web', title: 'Web' }],
    project: { projectId: 'p1', members: [], counts },
    list: withList ? { projectId: 'p1', rows: [] } : null,
  }
}

test('an empty cache holds nothing, and a cache of no entries keeps nothing', () => {
  assert.equal(createPageCache(10).get(null, null), null)
  const none = createPageCache(0)
  none.set('web', ask(''), parts(3))
  assert.equal(none.get('web', ask('')), null)
  assert.equal(none.get(null, null), null)
})

test('what was kept for a project and a page of its list is given back with its version', () => {
  const cache = createPageCache(10)
  const read = parts(3)
  cache.set('web', ask('fonts'), read)
  const kept = cache.get('web', ask('fonts'))
  assert.equal(kept?.version, 3)
  assert.equal(kept?.switcher, read.switcher)
  assert.equal(kept?.project, read.project)
  assert.equal(kept?.list, read.list)
  assert.equal(
    cache.get(null, null)?.switcher,
    read.switcher,
    'a page without a project needs only the switcher',
  )
  assert.equal(cache.get('web', null)?.project, read.project)
})

test('a request that needs anything not kept gets nothing, so that it reads it all', () => {
  const cache = createPageCache(10)
  cache.set('web', ask('fonts'), parts(3))
  assert.equal(cache.get('web', ask('csv')), null, 'another search')
  assert.equal(cache.get('mobile', null), null, 'another project')
  assert.equal(cache.get(null, ask('fonts')), null, 'a list without a project')
})

test('a read at another version replaces everything kept', () => {
  const cache = createPageCache(10)
  cache.set('web', ask('fonts'), parts(3))
  cache.set('mobile', null, {
    ...parts(4, false),
    project: { projectId: 'p2', members: [], counts },
  })
  assert.equal(cache.get('web', null), null)
  assert.equal(cache.get('mobile', null)?.version, 4)
})

test('at most the limit of lists are kept, the least recently used dropped first', () => {
  const cache = createPageCache(2)
  cache.set('web', ask('a'), parts(3))
  cache.set('web', ask('b'), parts(3))
  assert.notEqual(cache.get('web', ask('a')), null)
  cache.set('web', ask('c'), parts(3))
  assert.equal(cache.get('web', ask('b')), null, 'b was the least recently used')
  assert.notEqual(cache.get('web', ask('a')), null)
})
