import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  cleanFileName,
  fileIdsIn,
  fileMarkdown,
  filePath,
  formatSize,
  imageKind,
} from '../../src/tickets/rules/files.ts'

const bytes = (hex: string) => Buffer.from(hex.replaceAll(' ', ''), 'hex')

test('imageKind knows PNG, JPEG, GIF and WebP by their first bytes, and nothing else', () => {
  assert.equal(imageKind(bytes('89504e47 0d0a1a0a 0000')), 'png')
  assert.equal(imageKind(bytes('ffd8ffe0 0010')), 'jpeg')
  assert.equal(imageKind(Buffer.from('GIF89a....')), 'gif')
  assert.equal(imageKind(Buffer.from('GIF87a....')), 'gif')
  assert.equal(imageKind(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ')), 'webp')
  for (const other of [
    '<svg xmlns="http://www.w3.org/2000/svg">',
    '<!doctype html>',
    'RIFF\x10\x00\x00\x00WAVEfmt ',
    'GIF88a',
    '',
    '\x89PNG',
  ]) {
    assert.equal(imageKind(Buffer.from(other, 'latin1')), null, JSON.stringify(other))
  }
})

test('cleanFileName keeps a safe last part of a path', () => {
  assert.equal(cleanFileName('..\\..\\boot.ini'), 'boot.ini')
  assert.equal(cleanFileName('gpj.\u202eexe'), 'gpj.exe')
  assert.equal(cleanFileName('rapport d\u00e9taill\u00e9.pdf'), 'rapport d\u00e9taill\u00e9.pdf')
  assert.equal(cleanFileName('...'), 'file')
  const long = cleanFileName(`${'\u00e9'.repeat(250)}.tar.gz`)
  assert.equal([...long].length, 200)
  assert.ok(long.endsWith('.gz'))
})

test('a file is linked by its path from the root: an image as an image, anything else with its size', () => {
  const id = 'AbCdEfGhIjKlMnOpQrStUv'
  assert.equal(filePath(id, 'a (1).png'), `/files/${id}/a%20%281%29.png`)
  assert.equal(
    fileMarkdown({ id, name: 'shot [1].png', size: 10, image: 'png' }),
    `![shot \\[1\\].png](/files/${id}/shot%20%5B1%5D.png)`,
  )
  assert.equal(
    fileMarkdown({ id, name: 'log.txt', size: 1_300_000, image: null }),
    `[log.txt (1.2 MB)](/files/${id}/log.txt)`,
  )
})

test('formatSize reads as people read sizes', () => {
  assert.deepEqual(
    [0, 512, 1024, 1536, 1_258_291, 150 * 1024 * 1024, 3 * 1024 ** 3].map(formatSize),
    ['0 B', '512 B', '1 kB', '1.5 kB', '1.2 MB', '150 MB', '3 GB'],
  )
})

test('fileIdsIn finds the files a text links, relative or absolute, each once', () => {
  const a = 'AbCdEfGhIjKlMnOpQrStUv'
  const b = 'zyxwvutsrqponmlkjihg_-'
  const text = `![x](/files/${a}/x.png) and [y](http://t.example/files/${b}/y.log) again /files/${a}/x.png, not /files/${a}x/z nor /files/short/z`
  assert.deepEqual(fileIdsIn(text), [a, b])
})
