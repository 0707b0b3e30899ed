// How a response tells the SDK about limits: response.incomplete with
// incomplete_details.reason at the output limit, and response.queued then
// response.in_progress for a turn that waits behind the concurrency cap
// (ABX_AGENTS_MAX_CONCURRENT_TURNS, 4 by default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, client, collect, limit, uniquePrompt } from '../lib/harness.mjs';

const c = client();

test('an output-limit stop streams response.incomplete with reason max_output_tokens', { timeout: 120_000 }, async () => {
  const stream = await c.responses.create(
    { model: AGENTS.capped, input: uniquePrompt('flood'), stream: true }, limit(90_000));
  const events = await collect(stream);
  const last = events.at(-1);
  assert.equal(last.type, 'response.incomplete');
  assert.equal(last.response.status, 'incomplete');
  assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
  assert.equal(last.response.error, null);
  assert.ok(!events.some((e) => e.type === 'response.failed'), 'no response.failed');

  const got = await c.responses.retrieve(last.response.id, {}, limit());
  assert.equal(got.status, 'incomplete');
  assert.equal(got.incomplete_details.reason, 'max_output_tokens');
});

test('a turn behind a full concurrency cap streams response.queued, then in_progress', { timeout: 120_000 }, async () => {
  // Four slow background turns take the four workers.
  const holders = [];
  for (let i = 0; i < 4; i++)
    holders.push(await c.responses.create(
      { model: AGENTS.slow, input: uniquePrompt('hold'), background: true }, limit()));
  try {
    const stream = await c.responses.create(
      { model: AGENTS.codex, input: uniquePrompt('waits'), stream: true }, limit(90_000));
    const types = (await collect(stream)).map((e) => e.type);
    assert.deepEqual(types.slice(0, 3), ['response.created', 'response.queued', 'response.in_progress']);
    assert.equal(types.at(-1), 'response.completed');
  } finally {
    for (const h of holders) await c.responses.cancel(h.id, limit(60_000)).catch(() => {});
  }

  // With the workers free again, a turn starts at once: no response.queued.
  const free = await c.responses.create(
    { model: AGENTS.codex, input: uniquePrompt('free'), stream: true }, limit(60_000));
  const types = (await collect(free)).map((e) => e.type);
  assert.ok(!types.includes('response.queued'), `unexpected queued: ${types.join(',')}`);
});
