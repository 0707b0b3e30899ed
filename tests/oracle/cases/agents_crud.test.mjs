// Agent definitions, vaults (also referenced by a definition) and list
// pagination through client.beta.agents.*, and GET /v1/agents/runtimes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, OpenAI, client, limit, uniquePrompt } from '../lib/harness.mjs';

const c = client();
const beta = c.beta.agents;

test('agents CRUD: create, retrieve, list, update, delete; secrets write-only', { timeout: 60_000 }, async () => {
  const name = `oracle-crud-${Math.random().toString(36).slice(2, 8)}`;
  const secret = `crud-secret-${Math.random().toString(36).slice(2, 12)}`;
  const created = await beta.create({
    name, runtime: 'command', model: 'any',
    command: { argv: ['fake-agent', '--format', 'jsonl-codex'], parser: 'jsonl-codex' },
    secrets: { CRUD_SECRET: secret },
  }, limit());
  assert.equal(created.id, name);
  assert.equal(created.object, 'agent');
  assert.ok(!JSON.stringify(created).includes(secret), 'a secret came back');
  const got = await beta.retrieve(name, limit());
  assert.equal(got.id, name);
  assert.ok(!JSON.stringify(got).includes(secret));
  const page = await beta.list({ limit: 100 }, limit());
  assert.ok(page.data.some((a) => a.id === name));
  const updated = await beta.update(name, {
    runtime: 'command', instructions: 'Be brief.',
    command: { argv: ['fake-agent', '--format', 'jsonl-codex'], parser: 'jsonl-codex' },
  }, limit());
  assert.equal(updated.instructions, 'Be brief.');
  const deleted = await beta.delete(name, limit());
  assert.equal(deleted.deleted, true);
  await assert.rejects(beta.retrieve(name, limit()), (e) => e.status === 404);
});

test('vaults and credentials CRUD; the credential secret never comes back', { timeout: 60_000 }, async () => {
  const vault = await beta.vaults.create({ name: 'oracle', metadata: { team: 'a' } }, limit());
  assert.match(vault.id, /^vlt_/);
  assert.equal(vault.object, 'vault');
  const secret = `vault-secret-${Math.random().toString(36).slice(2, 12)}`;
  const cred = await beta.vaults.credentials.create(vault.id, {
    name: 'token', auth: { type: 'environment_variable', secret_name: 'ORACLE_VAULT_TOKEN', secret_value: secret },
  }, limit());
  assert.equal(cred.object, 'vault.credential');
  assert.equal(cred.auth.secret_name, 'ORACLE_VAULT_TOKEN');
  const got = await beta.vaults.credentials.retrieve(cred.id, { vault_id: vault.id }, limit());
  const listed = await beta.vaults.credentials.list(vault.id, {}, limit());
  for (const body of [cred, got, listed]) assert.ok(!JSON.stringify(body).includes(secret));
  const session = await beta.sessions.create(
    { agent_id: AGENTS.codex, environment: { type: 'none' }, vault_ids: [vault.id] }, limit());
  assert.deepEqual(session.vault_ids, [vault.id]);
  const rotated = await beta.vaults.credentials.update(cred.id, {
    vault_id: vault.id, auth: { type: 'environment_variable', secret_value: `${secret}-2` },
  }, limit());
  assert.ok(!JSON.stringify(rotated).includes(secret));
  await beta.vaults.credentials.delete(cred.id, { vault_id: vault.id }, limit());
  const renamed = await beta.vaults.update(vault.id, { name: 'oracle-renamed', metadata: { team: 'b' } }, limit());
  assert.equal(renamed.name, 'oracle-renamed');
  assert.deepEqual(renamed.metadata, { team: 'b' });
  const vaults = await beta.vaults.list({}, limit());
  assert.ok(vaults.data.some((v) => v.id === vault.id));
  await beta.vaults.delete(vault.id, limit());
  await assert.rejects(beta.vaults.retrieve(vault.id, limit()), (e) => e.status === 404);
});

test('a credential referenced by an agent reaches its CLI and is redacted everywhere else', { timeout: 120_000 }, async () => {
  // The canary: run.sh fails the suite if it shows up in the server log, the
  // state dir or any byte the SDK received.
  const secret = process.env.ORACLE_CANARY_VALUE;
  assert.ok(secret && secret.length >= 16, 'run.sh passes ORACLE_CANARY_VALUE');
  const vault = await beta.vaults.create({ name: 'referenced' }, limit());
  const cred = await beta.vaults.credentials.create(vault.id, {
    name: 'ref', auth: { type: 'environment_variable', secret_name: 'UNUSED_NAME', secret_value: secret },
  }, limit());
  const name = `oracle-ref-${Math.random().toString(36).slice(2, 8)}`;
  const reference = { vault: vault.id, credential: cred.id };
  const created = await beta.create({
    name, runtime: 'command',
    command: { argv: ['sh', '-c', 'printf "REF=%s len=%s\\n" "$REF_TOKEN" "${#REF_TOKEN}"'], parser: 'text' },
    workspace: { path: `${process.env.ORACLE_WORK_DIR}/ref-workspace` },
    permissions: 'read_only',
    secrets: { REF_TOKEN: reference },
  }, limit());
  // The definition shows the reference, never the value.
  assert.deepEqual(created.secrets.REF_TOKEN, reference);
  assert.deepEqual((await beta.retrieve(name, limit())).secrets.REF_TOKEN, reference);
  // The value reaches the child (its length is printed) and is redacted in
  // what comes back, through both wires.
  const expected = `REF=[REDACTED] len=${secret.length}`;
  const s = await beta.sessions.create({ agent_id: name, environment: { type: 'none' } }, limit());
  const result = await beta.sessions.stream(s.id, { input: 'print it' }, limit(60_000)).finalResult();
  assert.equal(result.output_text.trim(), expected);
  const response = await c.responses.create({ model: name, input: 'print it' }, limit(60_000));
  assert.equal(response.output_text.trim(), expected);
  // Rotation takes effect on the next turn; the new value is redacted too.
  await beta.vaults.credentials.update(cred.id, {
    vault_id: vault.id, auth: { type: 'environment_variable', secret_value: `${secret}-rotated` },
  }, limit());
  const rotated = await c.responses.create({ model: name, input: 'print it' }, limit(60_000));
  assert.equal(rotated.output_text.trim(), `REF=[REDACTED] len=${secret.length + 8}`);
  // A deleted credential refuses the next turn (400 invalid_request on
  // `model`: the agent exists, it cannot run now) with a message naming it.
  await beta.vaults.credentials.delete(cred.id, { vault_id: vault.id }, limit());
  const failed = await c.responses.create({ model: name, input: 'print it' }, limit(60_000))
    .then((r) => ({ ok: r }), (e) => e);
  assert.ok(failed instanceof OpenAI.BadRequestError, `not a 400: ${failed}`);
  assert.equal(failed.code, 'invalid_request');
  assert.equal(failed.param, 'model');
  assert.match(failed.message, new RegExp(cred.id));
  await beta.delete(name, limit());
  await beta.vaults.delete(vault.id, limit());
});

test('sessions list paginates over 250 sessions without loss or repeats', { timeout: 120_000 }, async () => {
  const made = new Set();
  for (let i = 0; i < 250; i++) {
    const s = await beta.sessions.create({ agent_id: AGENTS.codex, environment: { type: 'none' } }, limit());
    made.add(s.id);
  }
  const seen = [];
  for await (const s of beta.sessions.list({ limit: 40 }, limit(60_000))) seen.push(s.id);
  assert.equal(new Set(seen).size, seen.length, 'no session twice');
  for (const id of made) assert.ok(seen.includes(id), `session ${id} missing from the pages`);
  void uniquePrompt;
});

// Not an OpenAI route: the runtimes the `model` of a definition may name.
test('GET /v1/agents/runtimes lists the adapters, codex the default', { timeout: 30_000 }, async () => {
  const runtimes = await c.get('/agents/runtimes', limit());
  assert.equal(runtimes.object, 'list');
  const codex = runtimes.data.find((r) => r.name === 'codex');
  assert.ok(codex, `no codex in ${JSON.stringify(runtimes.data.map((r) => r.name))}`);
  assert.equal(codex.default, true);
  assert.ok(runtimes.data.some((r) => r.name === 'command'));
});
