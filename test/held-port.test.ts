/**
 * A service told to take any port (0) has its port chosen before it listens, so that its public
 * address can name it (src/start/ports.ts): the port is held from then until the service listens
 * on it, so nothing else on the machine can take it in between.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { test } from 'node:test'
import { createLogger } from '../src/base/log.ts'
import { json } from '../src/http/response.ts'
import { serve } from '../src/http/server.ts'
import { holdPort } from '../src/start/ports.ts'

/** Whether another program could listen on `port` of 127.0.0.1 now (and it stops again). */
async function couldListen(port: number): Promise<boolean> {
  const other = createServer()
  const listened = await new Promise<boolean>((resolve) => {
    other.once('error', () => resolve(false))
    other.listen(port, '127.0.0.1', () => resolve(true))
  })
  if (listened) await new Promise((resolve) => other.close(resolve))
  return listened
}

test('a port held for a service is refused to another program until the service listens on it, and the service answers there', async () => {
  const held = await holdPort('127.0.0.1')
  assert.equal(await couldListen(held.port), false, 'nobody else can take the held port')
  const served = await serve({
    name: 'demo',
    routes: [{ method: 'GET', path: '/hello', handler: () => json(200, { hello: 'there' }) }],
    host: '127.0.0.1',
    port: held.port,
    held: held.take(),
    logger: createLogger(null),
    graceMs: 0,
  })
  assert.equal(served.port, held.port)
  const answer = await fetch(`${served.url}/hello`)
  assert.deepEqual(await answer.json(), { hello: 'there' })
  // A start that fails later releases every port it held: one a server took stays with it.
  await held.release()
  assert.equal((await fetch(`${served.url}/hello`)).status, 200)
  await served.close()
  assert.equal(await couldListen(held.port), true, 'free again once the service stopped')
})

test('a held port no service took is given back by release', async () => {
  const held = await holdPort('127.0.0.1')
  await held.release()
  assert.equal(await couldListen(held.port), true)
})
