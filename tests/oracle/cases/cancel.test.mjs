// Background responses and cancel, on the slow fake agent (FAKE_MODE=slow).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, client, limit, uniquePrompt, sleep } from '../lib/harness.mjs';

const c = client();

test('cancel of a background response on the slow agent ends cancelled; retrieve agrees', { timeout: 120_000 }, async () => {
  const b = await c.responses.create(
    { model: AGENTS.slow, input: uniquePrompt('background'), background: true }, limit());
  assert.equal(b.object, 'response');
  assert.match(b.id, /^resp_/);
  assert.ok(['queued', 'in_progress'].includes(b.status), `background create returns at once; status ${b.status}`);
  assert.equal(b.background, true);

  // Give the turn a moment to reach the agent process, so the cancel has a
  // running child to stop (and not only a queued turn).
  for (let i = 0; i < 20; i++) {
    const cur = await c.responses.retrieve(b.id, {}, limit());
    assert.ok(['queued', 'in_progress'].includes(cur.status), `slow agent finished too early: ${cur.status}`);
    if (cur.status === 'in_progress') break;
    await sleep(100);
  }

  const cancelled = await c.responses.cancel(b.id, limit(60_000));
  assert.equal(cancelled.id, b.id);
  assert.equal(cancelled.status, 'cancelled');

  const got = await c.responses.retrieve(b.id, {}, limit());
  assert.equal(got.status, 'cancelled');
  // It stays cancelled: the killed agent must not turn it into completed/failed.
  await sleep(1_000);
  const later = await c.responses.retrieve(b.id, {}, limit());
  assert.equal(later.status, 'cancelled');
});
