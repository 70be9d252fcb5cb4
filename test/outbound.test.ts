import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  isPublicAddress,
  NOT_PUBLIC_ADDRESS,
  postChecked,
  refuseHost,
} from '../src/http/outbound.ts'

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
  const outcome = await postChecked('http://127.0.0.1:9/hook', {}, '{}', {
    timeoutMs: 1000,
    allowPrivate: false,
    keepBytes: 1024,
  })
  assert.deepEqual(outcome, { ok: false, error: NOT_PUBLIC_ADDRESS, durationMs: 0 })
})

test('every IPv6 form that carries an IPv4 address is judged by that address (issue 35, point 9)', () => {
  // The review's finding: these three reached 127.0.0.1 as webhook targets.
  const cases: [string, boolean][] = [
    ['::7f00:1', false], // IPv4-compatible, deprecated
    ['::127.0.0.1', false],
    ['::ffff:0:7f00:1', false], // IPv4-translated (RFC 6145)
    ['2002:7f00:1::', false], // 6to4 of 127.0.0.1
    ['2002:a00:1::1', false], // 6to4 of 10.0.0.1
    ['2002:a9fe:a9fe::', false], // 6to4 of the metadata address
    ['2002:808:808::1', true], // 6to4 of 8.8.8.8
    ['::ffff:7f00:1', false], // mapped, written in hex
    ['::ffff:a9fe:a9fe', false],
    ['64:ff9b::a9fe:a9fe', false], // NAT64
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::808:808', false], // local-use NAT64
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false], // Teredo, client 127.0.0.1 (inverted)
    ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', false], // Teredo, server 127.0.0.1
    ['2001:0:808:808:0:0:f7f7:f7f7', true], // Teredo, server and client 8.8.8.8
    ['::808:808', true], // compatible, 8.8.8.8
    ['fe80::1%eth0', false],
    ['2001:db8::1', false],
    ['100::1', false],
  ]
  for (const [address, expected] of cases) assert.equal(isPublicAddress(address), expected, address)
})

test('a webhook target spelled as IPv6 carrying a loopback IPv4 address is refused without connecting', async () => {
  for (const host of ['[::7f00:1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::]']) {
    const outcome = await postChecked(`http://${host}:9/hook`, {}, '{}', {
      timeoutMs: 1000,
      allowPrivate: false,
      keepBytes: 1024,
    })
    assert.deepEqual(outcome, { ok: false, error: NOT_PUBLIC_ADDRESS, durationMs: 0 }, host)
    assert.equal(await refuseHost(host, false), NOT_PUBLIC_ADDRESS, host)
  }
})
