// /v1/models: the configured agents are the models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, client, limit } from '../lib/harness.mjs';

const c = client();

test('models.list contains every configured agent', { timeout: 60_000 }, async () => {
  const ids = [];
  for await (const m of c.models.list(limit())) {
    assert.equal(m.object, 'model', JSON.stringify(m));
    assert.equal(typeof m.created, 'number', JSON.stringify(m));
    // A real time (the definition's creation or the server's start), not 0.
    assert.ok(Math.abs(m.created - Date.now() / 1000) < 3600, JSON.stringify(m));
    assert.equal(typeof m.owned_by, 'string', JSON.stringify(m));
    ids.push(m.id);
  }
  for (const name of Object.values(AGENTS)) assert.ok(ids.includes(name), `${name} not in ${JSON.stringify(ids)}`);
});

test('models.retrieve returns one agent as a model', { timeout: 60_000 }, async () => {
  const m = await c.models.retrieve(AGENTS.codex, limit());
  assert.equal(m.id, AGENTS.codex);
  assert.equal(m.object, 'model');
  assert.equal(typeof m.created, 'number');
  assert.equal(typeof m.owned_by, 'string');
});
