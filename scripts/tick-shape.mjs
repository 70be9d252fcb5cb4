/**
 * Keeps one of node's tick records (the object `process.nextTick` queues) alive for the life of
 * the process, so that V8 never drops the hidden classes those records pass through. The start
 * script (`scripts/run.mjs`) calls it before anything else runs.
 *
 * Why, measured on node 20 (V8 11.3). node builds each record with an object literal whose first
 * keys are computed: `{ [async_id_symbol]: id, [trigger_async_id_symbol]: trigger, callback,
 * args }`. V8 records, per key, the hidden class the record had before that key was added, and
 * holds those classes weakly. A full collection at a moment when no record is queued (one
 * during start-up, while the browser code is bundled and the migrations run, is enough) drops
 * them; the next record gets new classes, and V8, finding a class it no longer knows, marks
 * three of the four keys "megamorphic" for good. From then on, every optimized function that
 * makes a record (node's `endReadable`, `OutgoingMessage.end`, `onwrite`, all of which inline
 * `nextTick`) defines those keys through a runtime call instead of three stores.
 *
 * An HTTP answer makes several records. In the service's process this slow path took a third
 * of the instructions of a `GET /api/me` (under valgrind: 118,000 instructions a request against
 * 81,000 with a record kept), and it came in most processes started by `npm start`
 * (docs/performance.md, "Node's tick records"). A record kept alive holds its hidden class, and
 * through it the chain of classes before it, so nothing is dropped and the keys stay on the fast
 * path.
 */
import { createHook } from 'node:async_hooks'

/** @type {object | null} */
let kept = null

/** Captures and keeps one tick record; later calls do nothing. */
export function keepTickShape() {
  if (kept !== null) return
  // node hands a record out only to an async hook's `init`; the hook is on for one call.
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && kept === null) kept = resource
    },
  }).enable()
  process.nextTick(noop)
  hook.disable()
}

function noop() {}
