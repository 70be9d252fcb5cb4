import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isPublicAddress, NOT_PUBLIC_ADDRESS, postChecked, refuseHost } from '../src/http/outbound.ts'

test('isPublicAddress refuses loopback, private, link-local, metadata and reserved addresses', () => {
  const cases: [string, boolean][] = [
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::7f00:1', false],
    ['not an address', false],
  ]
  for (const [address, expected] of cases) assert.equal(isPublicAddress(address), expected, address)
})

test('refuseHost resolves the name first: localhost is refused unless private targets are allowed', async () => {
  assert.equal(await refuseHost('localhost', false), NOT_PUBLIC_ADDRESS)
  assert.equal(await refuseHost('localhost', true), null)
  assert.equal(await refuseHost('[::1]', false), NOT_PUBLIC_ADDRESS)
})

test('postChecked refuses a literal private address without connecting', async () => {
  const outcome = await postChecked('http://127.0.0.1:9/hook', {}, '{}', { timeoutMs: 1000, allowPrivate: false, keepBytes: 1024 })
  assert.deepEqual(outcome, { ok: false, error: NOT_PUBLIC_ADDRESS, durationMs: 0 })
})
