import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  nextAttemptAt,
  PAYLOAD_MAX_BYTES,
  RETRY_FOR_MS,
  webhookBody,
  webhookMessageOf,
} from '../../src/tickets/rules/webhook-events.ts'
import { signingSecrets } from '../../src/tickets/store/webhooks.ts'

const project = { id: 'p1', slug: 'web' }

test('live events become webhook kinds; events no webhook hears become null', () => {
  const ticket = { id: 't1', ref: 'web#1' }
  const ev = (name: string, args: unknown[]) => ({
    seq: 1,
    projectId: 'p1',
    name: name as never,
    args,
    created: 0,
  })
  assert.equal(webhookMessageOf(ev('ticketCreated', [ticket]), project)?.type, 'ticket.created')
  for (const [kind, type] of [
    ['comment', 'ticket.commented'],
    ['state', 'ticket.state_changed'],
    ['assign', 'ticket.assigned'],
    ['edit', 'ticket.edited'],
    ['link', 'ticket.related'],
  ]) {
    assert.deepEqual(webhookMessageOf(ev('ticketEvent', ['t1', { kind }, ticket]), project), {
      type,
      data: { project, ticket, event: { kind } },
    })
  }
  assert.equal(webhookMessageOf(ev('membersChanged', ['web']), project)?.type, 'member.changed')
  assert.equal(
    webhookMessageOf(ev('connectionsChanged', ['web']), project)?.type,
    'connection.changed',
  )
  assert.deepEqual(webhookMessageOf(ev('fileAttached', [{ id: 'f1' }]), project), {
    type: 'file.attached',
    data: { project, file: { id: 'f1' } },
  })
  assert.equal(webhookMessageOf(ev('projectChanged', ['web']), project), null)
  assert.equal(webhookMessageOf(ev('ticketsRelated', [[ticket]]), project), null)
})

test('a message over 256 KB is cut to the ids with the addresses to read the rest', () => {
  const data = {
    project,
    ticket: { id: 't1', ref: 'web#1', number: 1, summary: 'x'.repeat(PAYLOAD_MAX_BYTES) },
    event: { id: 7, kind: 'edit', summary: 'y' },
  }
  const body = JSON.parse(webhookBody('ticket.edited', 0, data, 'https://t.example'))
  assert.deepEqual(body, {
    type: 'ticket.edited',
    timestamp: '1970-01-01T00:00:00.000Z',
    data: {
      cut: true,
      project: { id: 'p1', slug: 'web', api: 'https://t.example/api/projects/web' },
      ticket: { id: 't1', ref: 'web#1', number: 1, api: 'https://t.example/api/tickets/t1' },
      event: { id: 7, kind: 'edit' },
    },
  })
  const small = JSON.parse(webhookBody('ticket.edited', 0, { project }, 'https://t.example'))
  assert.deepEqual(small.data, { project })
})

test('retries wait 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h, with ±20 % jitter, for 3 days', () => {
  const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => nextAttemptAt(n, 0, 0, () => 0.5))
  assert.deepEqual(
    waits,
    [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  )
  assert.equal(
    nextAttemptAt(1, 0, 0, () => 0),
    4_000,
  )
  assert.equal(
    nextAttemptAt(1, 0, 0, () => 0.999999),
    6_000,
  )
  assert.equal(
    nextAttemptAt(6, 0, RETRY_FOR_MS - 36_000_000, () => 0.5),
    RETRY_FOR_MS,
  )
  assert.equal(
    nextAttemptAt(6, 0, RETRY_FOR_MS - 35_000_000, () => 0.5),
    null,
  )
})

test('the rotated-out secret signs until its end, judged at each attempt, not when the webhook was held', () => {
  const hook = {
    id: 'w1',
    projectId: 'p1',
    url: 'https://example.com/hook',
    active: true,
    secret: 'whsec_new',
    previousSecret: 'whsec_old',
    previousUntil: 1_000_000,
  }
  assert.deepEqual(signingSecrets(hook, 999_999), ['whsec_new', 'whsec_old'])
  assert.deepEqual(signingSecrets(hook, 1_000_000), ['whsec_new'])
  assert.deepEqual(signingSecrets({ ...hook, previousSecret: null, previousUntil: null }, 0), [
    'whsec_new',
  ])
})
