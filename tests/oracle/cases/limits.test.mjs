// Enforced limits through the official SDK: a turn that burns more CPU than
// its agent's limits.cpu_seconds (RLIMIT_CPU on the agent's processes) ends
// failed, and the error names the limit and its value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, client, limit, uniquePrompt } from '../lib/harness.mjs';

const c = client();

test('a turn exceeding cpu_seconds fails with the limit named', { timeout: 120_000 }, async () => {
  const started = Date.now();
  const r = await c.responses.create({ model: AGENTS.burn, input: uniquePrompt('burn') }, limit(90_000));
  assert.equal(r.object, 'response');
  assert.equal(r.status, 'failed', `status ${r.status}`);
  assert.equal(typeof r.error?.message, 'string', JSON.stringify(r.error));
  assert.match(r.error.message, /limits\.cpu_seconds \(1 s of CPU time\)/);
  // Ended by the CPU limit, not by the definition's 120 s turn timeout.
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);

  const got = await c.responses.retrieve(r.id, {}, limit());
  assert.equal(got.status, 'failed');
  assert.match(got.error.message, /limits\.cpu_seconds/);
});
