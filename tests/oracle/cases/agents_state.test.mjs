// Durable agents state through the official SDK: an agent definition and a
// vault credential survive a restart of the server. With a state key
// (ABX_AGENTS_STATE_KEY) their secrets come back; without one the credential
// and the definition come back marked as needing their secret, a turn fails
// with a message that says so, and sending the secrets again heals them.
// Each test runs servers of its own (harness startServer), one after the
// other on the same state dir; the credential's secret is the run's canary,
// which run.sh then looks for in their state dirs and logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { limit, startServer } from '../lib/harness.mjs';

const canary = process.env.ORACLE_CANARY_VALUE;

// A vault, its credential (the canary) and an agent whose CLI prints the
// lengths of its two secrets: one inline, one the credential's.
async function createAll(beta, name) {
  const vault = await beta.vaults.create({ name: 'durable', metadata: { kept: 'yes' } }, limit());
  const cred = await beta.vaults.credentials.create(vault.id, {
    name: 'durable-token',
    auth: { type: 'environment_variable', secret_name: 'DURABLE_TOKEN', secret_value: canary },
  }, limit());
  await beta.create({
    name, runtime: 'command', metadata: { kept: 'yes' },
    command: { argv: ['sh', '-c', 'printf "vault=%s inline=%s\\n" "${#VAULTED}" "${#INLINE}"'], parser: 'text' },
    workspace: { path: `${process.env.ORACLE_WORK_DIR}/state-workspace` },
    permissions: 'read_only',
    secrets: { VAULTED: { vault: vault.id, credential: cred.id }, INLINE: 'inline-secret-0123' },
  }, limit());
  return { vault, cred };
}

// Sends @p input to session @p id and returns its turn once it has ended.
async function runTurn(beta, id, input) {
  const before = new Set((await beta.sessions.turns.list(id, { limit: 100 }, limit())).data.map((t) => t.id));
  await beta.sessions.events.create(id, {
    events: [{ type: 'agent.session.input.message', input }],
  }, limit());
  for (let i = 0; i < 300; ++i) {
    const turns = await beta.sessions.turns.list(id, { limit: 100 }, limit());
    const added = turns.data.find((t) => !before.has(t.id));
    if (added && ['completed', 'failed', 'cancelled'].includes(added.status)) return added;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the turn '${input}' of session ${id} did not end`);
}

const expected = `vault=${canary.length} inline=18`;

// Creates everything on a first server named @p serverName, runs one turn of
// a session, restarts the server on the same state dir; returns the new
// server, its client's agents API and the ids.
async function createAndRestart(serverName, name, env = {}) {
  const first = await startServer(serverName, env);
  const beta = first.client().beta.agents;
  const { vault, cred } = await createAll(beta, name);
  const session = await beta.sessions.create({ agent_id: name, environment: { type: 'none' } }, limit());
  const before = await beta.sessions.stream(session.id, { input: 'before' }, limit(60_000)).finalResult();
  assert.equal(before.output_text.trim(), expected);
  await first.stop();
  const server = await startServer(serverName, env);
  return { server, beta: server.client().beta.agents, vault, cred, session };
}

test('with a state key, a definition and a vault credential survive a restart with their secrets', { timeout: 120_000 }, async () => {
  const env = { ABX_AGENTS_STATE_KEY: randomBytes(32).toString('hex') };
  const name = `durable-${randomBytes(3).toString('hex')}`;
  const { server, beta, vault, cred, session } = await createAndRestart('keyed', name, env);
  const agent = await beta.retrieve(name, limit());
  assert.equal(agent.id, name);
  assert.deepEqual(agent.metadata, { kept: 'yes' });
  assert.deepEqual(agent.secrets.VAULTED, { vault: vault.id, credential: cred.id });
  assert.equal(agent.secrets_not_kept, undefined);
  assert.deepEqual((await beta.vaults.retrieve(vault.id, limit())).metadata, { kept: 'yes' });
  const got = await beta.vaults.credentials.retrieve(cred.id, { vault_id: vault.id }, limit());
  assert.equal(got.name, 'durable-token');
  assert.equal(got.auth.secret_name, 'DURABLE_TOKEN');
  assert.equal(got.secret_kept, undefined);
  // Both secrets reach the CLI again, on the restored session and a new one.
  const again = await beta.sessions.stream(session.id, { input: 'after' }, limit(60_000)).finalResult();
  assert.equal(again.output_text.trim(), expected);
  const response = await server.client().responses.create({ model: name, input: 'after' }, limit(60_000));
  assert.equal(response.output_text.trim(), expected);
  await server.stop();
});

test('without a state key, the credential comes back needing its secret and a turn says so', { timeout: 120_000 }, async () => {
  const name = `unkeyed-${randomBytes(3).toString('hex')}`;
  const { server, beta, vault, cred, session } = await createAndRestart('unkeyed', name);
  const got = await beta.vaults.credentials.retrieve(cred.id, { vault_id: vault.id }, limit());
  assert.equal(got.name, 'durable-token');
  assert.equal(got.secret_kept, false);
  const listed = await beta.vaults.credentials.list(vault.id, {}, limit());
  assert.equal(listed.data.find((c) => c.id === cred.id)?.secret_kept, false);
  const agent = await beta.retrieve(name, limit());
  assert.deepEqual(agent.secrets_not_kept, ['secrets.INLINE']);

  // The restored session's next turn fails, naming what is missing and the remedy.
  let turn = await runTurn(beta, session.id, 'after');
  assert.equal(turn.status, 'failed');
  assert.match(turn.error.message, /secrets\.INLINE/);
  assert.match(turn.error.message, /ABX_AGENTS_STATE_KEY/);
  // The inline secret sent again: now the credential's secret is what is missing.
  await beta.update(name, {
    secrets: { VAULTED: { vault: vault.id, credential: cred.id }, INLINE: 'inline-secret-0123' },
  }, limit());
  assert.equal((await beta.retrieve(name, limit())).secrets_not_kept, undefined);
  turn = await runTurn(beta, session.id, 'again');
  assert.equal(turn.status, 'failed');
  assert.match(turn.error.message, new RegExp(`${cred.id}.*was not kept`));
  assert.match(turn.error.message, /ABX_AGENTS_STATE_KEY/);
  // The credential's secret sent again: the turn runs.
  await beta.vaults.credentials.update(cred.id, {
    vault_id: vault.id, auth: { type: 'environment_variable', secret_value: canary },
  }, limit());
  const healed = await beta.vaults.credentials.retrieve(cred.id, { vault_id: vault.id }, limit());
  assert.equal(healed.secret_kept, undefined);
  const result = await beta.sessions.stream(session.id, { input: 'healed' }, limit(60_000)).finalResult();
  assert.equal(result.output_text.trim(), expected);
  await server.stop();
});
