// The SDK's agent objects both ways: client.beta.agents.create with the SDK's
// own parameters (model, instructions, metadata; no runtime), a session on it
// running a turn through the fake codex, an update that merges, a list
// filtered by metadata, delete; a session's inline agent and environment;
// and the 400s naming the field the server cannot honour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OpenAI, client, limit, uniquePrompt, fakeReply, expectApiError } from '../lib/harness.mjs';

const c = client();
const beta = c.beta.agents;
const work = process.env.ORACLE_WORK_DIR;
const tag = Math.random().toString(36).slice(2, 10);

// The fake CLIs append one JSON line per call (argv, cwd) to FAKE_AGENT_RECORD.
function calls(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

// The value codex was given for `-c <key>=...`, as its TOML string.
function codexConfig(argv, key) {
  const i = argv.findIndex((a, n) => argv[n - 1] === '-c' && a.startsWith(`${key}=`));
  return i < 0 ? undefined : argv[i].slice(key.length + 1);
}

test('agents.create with SDK params → session turn on codex → merge update → list by metadata → delete', { timeout: 120_000 }, async () => {
  const record = path.join(work, `objects-${tag}.jsonl`);
  const workspace = path.join(work, `objects-${tag}`);
  const created = await beta.create({
    model: 'codex',
    instructions: 'Answer in one line.',
    metadata: { team: `oracle-${tag}`, tier: 'gold' },
    // Extensions of the definition schema: where the agent works, what it sees.
    workspace: { path: workspace },
    env: { FAKE_AGENT_RECORD: record },
  }, limit());
  assert.match(created.id, /^agent_[0-9a-f]{24}$/);
  assert.equal(created.object, 'agent');
  assert.equal(created.name, null);
  assert.equal(created.model, 'codex');
  assert.equal(created.runtime, 'codex');
  assert.equal(created.instructions, 'Answer in one line.');
  assert.deepEqual(created.metadata, { team: `oracle-${tag}`, tier: 'gold' });
  assert.deepEqual(created.tools, []);
  assert.equal(created.text.format.type, 'text');

  // A session on it runs a turn through the fake codex, with its instructions.
  const s = await beta.sessions.create({ agent_id: created.id, environment: { type: 'none' } }, limit());
  const prompt = uniquePrompt('sdk agent');
  const result = await beta.sessions.stream(s.id, { input: prompt }, limit(60_000)).finalResult();
  assert.equal(result.output_text, fakeReply(prompt, 1));
  const first = calls(record).at(-1);
  assert.equal(first.cli, 'codex');
  assert.match(codexConfig(first.argv, 'developer_instructions'), /Answer in one line\./);
  assert.equal(first.cwd, workspace);

  // The update merges: only instructions change; runtime, workspace and metadata stay.
  const updated = await beta.update(created.id, { instructions: 'Answer in two lines.' }, limit());
  assert.equal(updated.id, created.id);
  assert.equal(updated.instructions, 'Answer in two lines.');
  assert.equal(updated.runtime, 'codex');
  assert.equal(updated.model, 'codex');
  assert.equal(updated.workspace.path, workspace);
  assert.deepEqual(updated.metadata, created.metadata);
  assert.ok(updated.updated_at >= created.updated_at);
  const second = uniquePrompt('after update');
  const again = await beta.sessions.stream(s.id, { input: second }, limit(60_000)).finalResult();
  assert.equal(again.output_text, fakeReply(second, 2));
  assert.match(codexConfig(calls(record).at(-1).argv, 'developer_instructions'), /Answer in two lines\./);

  // metadata[k]=v filters the list: every given pair must match.
  const other = await beta.create({ model: 'codex', metadata: { team: `oracle-${tag}`, tier: 'silver' } }, limit());
  const team = await beta.list({ metadata: { team: `oracle-${tag}` } }, limit());
  assert.deepEqual(team.data.map((a) => a.id).sort(), [created.id, other.id].sort());
  const gold = await beta.list({ metadata: { team: `oracle-${tag}`, tier: 'gold' } }, limit());
  assert.deepEqual(gold.data.map((a) => a.id), [created.id]);
  // Clearing metadata with null takes the agent out of the filtered list.
  const cleared = await beta.update(other.id, { metadata: null }, limit());
  assert.deepEqual(cleared.metadata, {});
  const after = await beta.list({ metadata: { team: `oracle-${tag}` } }, limit());
  assert.deepEqual(after.data.map((a) => a.id), [created.id]);

  for (const id of [created.id, other.id]) {
    const deleted = await beta.delete(id, limit());
    assert.equal(deleted.deleted, true);
    await expectApiError(beta.retrieve(id, limit()), OpenAI.NotFoundError, { status: 404 });
  }
});

test('a named agent: the name is the id; runtime/model split; mcp tools come back', { timeout: 60_000 }, async () => {
  const name = `oracle-objects-${tag}`;
  const created = await beta.create({
    name, model: 'claude-code/claude-sonnet-4-5',
    tools: [{ type: 'mcp', server_label: 'docs',
      transport: { type: 'http', server_url: 'http://127.0.0.1:9/mcp', headers: { 'X-Team': 'oracle' } },
      allowed_tools: ['search'] }],
  }, limit());
  assert.equal(created.id, name);
  assert.equal(created.name, name);
  assert.equal(created.runtime, 'claude-code');
  assert.equal(created.model, 'claude-code/claude-sonnet-4-5');
  assert.equal(created.tools.length, 1);
  assert.equal(created.tools[0].server_label, 'docs');
  assert.equal(created.tools[0].transport.server_url, 'http://127.0.0.1:9/mcp');
  assert.deepEqual(created.tools[0].allowed_tools, ['search']);
  const cleared = await beta.update(name, { tools: null }, limit());
  assert.deepEqual(cleared.tools, []);
  assert.equal(cleared.runtime, 'claude-code');
  await beta.delete(name, limit());
});

test('what the server cannot honour is a 400 naming the field', { timeout: 60_000 }, async () => {
  const refused = async (promise, param) => {
    const e = await expectApiError(promise, OpenAI.BadRequestError, { status: 400 });
    assert.equal(e.param, param, e.message);
  };
  await refused(beta.create({ model: 'codex', tools: [{ type: 'web_search' }] }, limit()), 'tools[0].type');
  await refused(beta.create({ model: 'codex', text: { format: { type: 'json_schema', schema: {} } } }, limit()),
    'text.format');
  await refused(beta.create({ model: 'codex', service_tier: 'flex' }, limit()), 'service_tier');
  await refused(beta.create({ model: 'codex', reasoning: { effort: 'high' } }, limit()), 'reasoning.effort');
  await refused(beta.create({ model: 'codex', metadata: { k: 'v'.repeat(513) } }, limit()), 'metadata.k');
  await refused(beta.create({ instructions: 'no model' }, limit()), 'model');
  const a = await beta.create({ model: 'codex', workspace: { path: path.join(work, `refused-${tag}`) } }, limit());
  await refused(beta.update(a.id, { name: 'renamed' }, limit()), 'name');
  await refused(beta.update(a.id, { tools: [{ type: 'function', name: 'f', description: 'd', parameters: {} }] }, limit()),
    'tools[0].type');
  // Sessions: the inline agent and environment are honoured or refused, never ignored.
  const env = { type: 'none' };
  await refused(beta.sessions.create({ agent_id: a.id, environment: env, agent: { text: { verbosity: 'high' } } }, limit()),
    'agent.text.verbosity');
  await refused(beta.sessions.create({ agent_id: a.id, environment: env, agent: { model: 'claude-code' } }, limit()),
    'agent.model');
  await refused(beta.sessions.create({ agent_id: a.id, environment: { type: 'openai_hosted' } }, limit()),
    'environment.type');
  await refused(beta.sessions.create({ agent_id: a.id, environment: { type: 'self_hosted', workspace_directory: '/etc' } }, limit()),
    'environment.workspace_directory');
  await refused(beta.sessions.create({ agent_id: a.id, environment: env,
    agent: { tools: [{ type: 'mcp', server_label: 'x', transport: { type: 'stdio', command: 'sh', cwd: '/' } }] } }, limit()),
  'agent.tools[0].transport.type');
  const s = await beta.sessions.create({ agent_id: a.id, environment: env }, limit());
  await refused(beta.sessions.update(s.id, { agent: { service_tier: 'priority' } }, limit()), 'agent.service_tier');
  await refused(beta.sessions.update(s.id, { spend_control: { limit: 100 } }, limit()), 'spend_control');
  await beta.delete(a.id, limit());
});

test('a session honours inline instructions, workspace_directory and metadata filters', { timeout: 120_000 }, async () => {
  const record = path.join(work, `inline-${tag}.jsonl`);
  const workspace = path.join(work, `inline-${tag}`);
  const a = await beta.create({ model: 'codex', workspace: { path: workspace }, env: { FAKE_AGENT_RECORD: record } }, limit());
  const sub = path.join(workspace, 'sub');
  const s = await beta.sessions.create({
    agent_id: a.id,
    // agent.model may repeat the agent's own (its id or its Agent's model).
    agent: { model: a.id, instructions: 'Session rule.', reasoning: { effort: 'low' } },
    environment: { type: 'self_hosted', workspace_directory: sub },
    metadata: { run: `inline-${tag}` },
  }, limit());
  const prompt = uniquePrompt('inline');
  const result = await beta.sessions.stream(s.id, { input: prompt }, limit(60_000)).finalResult();
  assert.equal(result.output_text, fakeReply(prompt, 1));
  const call = calls(record).at(-1);
  assert.equal(call.cwd, sub);
  assert.match(codexConfig(call.argv, 'developer_instructions'), /Session rule\./);
  assert.match(codexConfig(call.argv, 'model_reasoning_effort'), /low/);
  const listed = await beta.sessions.list({ metadata: { run: `inline-${tag}` } }, limit());
  assert.deepEqual(listed.data.map((x) => x.id), [s.id]);
  const none = await beta.sessions.list({ metadata: { run: 'nope' } }, limit());
  assert.equal(none.data.length, 0);
  // An update adds an http MCP server to the next turns; its header value never comes back.
  const header = `hdr-${tag}`;
  const updated = await beta.sessions.update(s.id, {
    metadata: { run: `moved-${tag}` },
    agent: { tools: [{ type: 'mcp', server_label: 'notes',
      transport: { type: 'http', server_url: 'http://127.0.0.1:9/mcp', headers: { 'X-Notes': header } } }] },
  }, limit());
  assert.deepEqual(updated.metadata, { run: `moved-${tag}` });
  assert.ok(!JSON.stringify(updated).includes(header));
  const next = uniquePrompt('with tools');
  const withTools = await beta.sessions.stream(s.id, { input: next }, limit(60_000)).finalResult();
  assert.equal(withTools.output_text, fakeReply(next, 2));
  const mcp = calls(record).at(-1).argv.find((a) => a.startsWith('mcp_servers.notes='));
  assert.ok(mcp && mcp.includes('http://127.0.0.1:9/mcp'), `no notes server in ${JSON.stringify(calls(record).at(-1).argv)}`);
  assert.equal(calls(record).at(-1).cwd, sub, 'the workspace_directory holds for later turns');
  await beta.sessions.delete(s.id, limit());
  await beta.delete(a.id, limit());
});
