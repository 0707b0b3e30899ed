// The real codex CLI (@openai/codex 0.169.0) behind this server's
// `runtime: codex` adapter, against the Responses API stub in
// ../lib/responses_stub.mjs (127.0.0.1, port 0), driven with the official
// openai@7.55.0 client:
//   - /v1/responses: two turns joined by previous_response_id (codex resumes
//     its own thread), the shell call as an mcp_call item, per-turn usage;
//   - /v1/agents/sessions: two turns (sessions.stream, then events.create +
//     the raw event stream), the shell call as a command_execution item;
//   - an MCP server from the definition (the stub's /mcp): its secret header
//     reaches it through codex's env_http_headers, the call is an mcp_call;
//   - the model's shell commands cannot read the provider key;
//   - an agent whose stub answers 401: authentication_error on both wires;
//   - nothing but the stub was contacted: every agent's HTTP(S)_PROXY is the
//     stub, which records any attempt to reach another host.
// The provider key is ORACLE_CANARY_VALUE, so run.sh's canary scan proves it
// never reached a log, the state dir or a response.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BASE_URL, TOKEN, client, limit, collect, messageText, assertUsage } from '../../oracle/lib/harness.mjs';
import { startResponsesStub, FINAL_TEXT, REASONING_TEXT, MCP_TOOL, MCP_RESULT } from '../lib/responses_stub.mjs';

const CANARY = process.env.ORACLE_CANARY_VALUE;
// The real CLIs' bin dir. The harness puts fake_agents/ first on the server's
// PATH, so each agent names its PATH itself: the pinned CLIs, then node (the
// npm `codex` launcher is a node script), then the system.
const REAL_BIN = process.env.REALCLI_BIN;
const AGENT_PATH = [REAL_BIN, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
const WORK_DIR = process.env.ORACLE_WORK_DIR;
const c = client({ timeout: 180_000 });
const T = { timeout: 240_000 };
const suffix = Math.random().toString(36).slice(2, 8);
const AGENT = `realcli-codex-${suffix}`;
const SANDBOXED = `realcli-codex-ws-${suffix}`;
const DENIED = `realcli-codex-401-${suffix}`;
const WITH_MCP = `realcli-codex-mcp-${suffix}`;
const INSTRUCTIONS = `Instructions marker ${suffix}: keep answers short.`;
let stub;

// The stub's requests that belong to one turn: codex sends the turn's prompt
// as the last user message of its first request.
const marker = (what) => `[${what}-${Math.random().toString(36).slice(2, 10)}]`;
const inputText = (req) => JSON.stringify(req.body?.input ?? []);
const turnMeta = (req) => JSON.parse(req.headers['x-codex-turn-metadata'] ?? '{}');

// codex sums every request's usage into its thread total; this turn's share is
// what the stub reported for the requests of this turn.
function stubUsage(requests) {
  const sum = { input: 0, output: 0 };
  for (const r of requests) {
    sum.input += r.reply?.usage?.input_tokens ?? 0;
    sum.output += r.reply?.usage?.output_tokens ?? 0;
  }
  return sum;
}

async function register(name, { base, permissions = 'full_access', mcp_servers }) {
  const workspace = path.join(WORK_DIR, `ws-${name}`);
  fs.mkdirSync(workspace, { recursive: true });
  const created = await c.beta.agents.create({
    name, runtime: 'codex', model: 'stub-model', instructions: INSTRUCTIONS, permissions,
    provider: { base_url: stub.url(base), api_key: CANARY },
    workspace: { path: workspace },
    // Every attempt to leave loopback goes to the stub's proxy sink.
    env: {
      HTTP_PROXY: stub.proxy, HTTPS_PROXY: stub.proxy, http_proxy: stub.proxy, https_proxy: stub.proxy,
      REALCLI_VISIBLE: 'visible-to-tools', PATH: AGENT_PATH,
    },
    limits: { turn_timeout_s: 150, idle_timeout_s: 120 },
    ...(mcp_servers ? { mcp_servers } : {}),
  }, limit());
  assert.equal(created.id, name);
  assert.ok(!JSON.stringify(created).includes(CANARY), 'the key came back from POST /v1/agents');
}

before(async () => {
  assert.ok(CANARY && WORK_DIR && REAL_BIN, 'run through tests/realcli/run.sh');
  assert.ok(fs.existsSync(path.join(REAL_BIN, 'codex')), `no codex in ${REAL_BIN}`);
  stub = await startResponsesStub();
  await register(AGENT, { base: '/v1' });
  await register(SANDBOXED, { base: '/v1', permissions: 'workspace_write' });
  await register(DENIED, { base: '/deny/v1' });
  // The header value is the canary: a secret that must reach the MCP server
  // through the env (env_http_headers) and nowhere else.
  await register(WITH_MCP, {
    base: '/v1', mcp_servers: { docs: { url: stub.url('/mcp'), headers: { Authorization: `Bearer ${CANARY}` } } },
  });
});

after(async () => { await stub?.close(); });

function mcpCalls(response) {
  return (response.output ?? []).filter((i) => i.type === 'mcp_call');
}

function assertShellCall(call) {
  assert.ok(call, 'no mcp_call item');
  assert.equal(call.server_label, 'codex');
  assert.equal(call.name, 'command_execution');
  assert.equal(typeof call.arguments, 'string');
  assert.match(JSON.parse(call.arguments).command, /echo hello-from-tool/);
  assert.equal(call.output, 'hello-from-tool\n');
  assert.equal(call.status, 'completed');
}

test('GET /v1/agents/runtimes lists codex', T, async () => {
  const r = await fetch(`${BASE_URL}/agents/runtimes`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200);
  const codex = (await r.json()).data.find((x) => x.name === 'codex');
  assert.ok(codex, 'codex is not a registered runtime');
  assert.equal(codex.installed, true);
  assert.equal(codex.experimental, false);
  assert.deepEqual(codex.capabilities, {
    resume: true, partial_deltas: false, mcp: true, system_prompt: true, base_url: true, max_turns: false, budget: false,
  });
  // The route probes the server's PATH, where run.sh puts the real CLIs
  // before fake_agents/ (whose codex prints the same version line).
  assert.equal(codex.path, path.join(REAL_BIN, 'codex'));
  assert.equal(codex.version, 'codex-cli 0.169.0');
});

test('/v1/responses: two turns with previous_response_id continuity, the shell call as mcp_call', T, async () => {
  const m1 = marker('turn1');
  const before1 = stub.requests.length;
  const r1 = await c.responses.create({ model: AGENT, input: `Please run the shell command: echo hello-from-tool ${m1}` }, limit(200_000));
  assert.equal(r1.status, 'completed', `turn 1: ${JSON.stringify(r1.error)}`);
  assertShellCall(mcpCalls(r1)[0]);
  const messages1 = r1.output.filter((i) => i.type === 'message');
  assert.equal(messages1.at(-1).content[0].text, FINAL_TEXT);
  assert.ok(r1.output.some((i) => i.type === 'reasoning' && i.summary[0]?.text === REASONING_TEXT), 'reasoning summary item');
  assertUsage(r1.usage);
  const turn1 = stub.requests.slice(before1);
  assert.equal(turn1.length, 2, 'turn 1: tool request + final request');
  assert.ok(inputText(turn1[0]).includes(m1), 'the prompt reached the model');
  assert.ok(inputText(turn1[0]).includes(INSTRUCTIONS), 'the instructions reached the model as a developer message');
  assert.equal(r1.usage.input_tokens, stubUsage(turn1).input);
  assert.equal(r1.usage.output_tokens, stubUsage(turn1).output);
  assert.ok(stub.authorizations.includes(`Bearer ${CANARY}`), 'the provider key reached the stub through env_key');

  // Turn 2, streamed, continuing the first response's codex thread.
  const m2 = marker('turn2');
  const before2 = stub.requests.length;
  const stream = await c.responses.create({
    model: AGENT, previous_response_id: r1.id, stream: true,
    input: `Run it once more: echo hello-from-tool ${m2}`,
  }, limit(200_000));
  const events = await collect(stream);
  const types = events.map((e) => e.type);
  assert.equal(types.at(-1), 'response.completed', types.join(', '));
  for (const t of ['response.mcp_call.in_progress', 'response.mcp_call_arguments.done', 'response.mcp_call.completed'])
    assert.ok(types.includes(t), `missing ${t}`);
  const r2 = events.at(-1).response;
  assert.equal(r2.previous_response_id, r1.id);
  assertShellCall(mcpCalls(r2)[0]);
  assert.equal(messageText({ output: [r2.output.filter((i) => i.type === 'message').at(-1)] }), FINAL_TEXT);

  const turn2 = stub.requests.slice(before2);
  assert.equal(turn2.length, 2);
  // codex resumed its thread: same thread id, a cold resume that re-sends turn 1.
  assert.equal(turnMeta(turn2[0]).thread_id, turnMeta(turn1[0]).thread_id);
  assert.equal(turnMeta(turn2[0]).history_initialization, 'cold_resume');
  assert.ok(inputText(turn2[0]).includes(m1), 'turn 1 is in the resumed history');
  assert.ok(inputText(turn2[0]).includes(m2));
  // Per-turn usage: codex printed the thread's total, the server reports this turn's share.
  assertUsage(r2.usage);
  assert.equal(r2.usage.input_tokens, stubUsage(turn2).input);
  assert.equal(r2.usage.output_tokens, stubUsage(turn2).output);
});

test('/v1/agents/sessions: two turns with continuity, the shell call as command_execution (workspace_write)', T, async () => {
  const sessions = c.beta.agents.sessions;
  const s = await sessions.create({ agent_id: SANDBOXED, environment: { type: 'none' } }, limit());
  const m1 = marker('session1');
  const before1 = stub.requests.length;
  const result = await sessions.stream(s.id, { input: `Please run the shell command: echo hello-from-tool ${m1}` }, limit(200_000)).finalResult();
  assert.equal(result.turn.status, 'completed', JSON.stringify(result.turn.error));
  assert.ok(result.output_text.endsWith(FINAL_TEXT), `output_text: ${result.output_text}`);
  const turn1 = stub.requests.slice(before1);
  assert.equal(turnMeta(turn1[0]).sandbox_mode, 'workspace-write');

  // Turn 2 through the raw event stream.
  const m2 = marker('session2');
  const before2 = stub.requests.length;
  const events = await sessions.events.stream(s.id, limit(200_000));
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text: `Run it once more: echo hello-from-tool ${m2}` }] }] }],
  }, limit());
  const seen = [];
  for await (const e of events) {
    seen.push(e);
    if (e.type === 'agent.session.idle' && seen.some((x) => x.type === 'agent.session.turn.completed' || x.type === 'agent.session.turn.failed')) break;
  }
  const types = seen.map((e) => e.type);
  assert.ok(types.includes('agent.session.turn.completed'), types.join(', '));
  const tool = seen.find((e) => e.type === 'agent.session.turn.item.done' && e.item.type === 'command_execution');
  assert.ok(tool, `no command_execution item.done in ${types.join(', ')}`);
  assert.match(tool.item.command, /echo hello-from-tool/);
  assert.equal(tool.item.output, 'hello-from-tool\n');
  assert.equal(tool.item.exit_code, 0);
  assert.equal(tool.item.status, 'completed');
  assert.ok(seen.some((e) => e.type === 'agent.session.turn.item.added' && e.item.type === 'command_execution'), 'tool item.added');
  const final = seen.filter((e) => e.type === 'agent.session.turn.item.done' && e.item.type === 'message').at(-1);
  assert.equal(final.item.content[0].text, FINAL_TEXT);
  const completed = seen.find((e) => e.type === 'agent.session.turn.completed');
  assert.equal(completed.usage.input_tokens, stubUsage(stub.requests.slice(before2)).input);

  // Continuity and the resume path's sandbox switch (-c sandbox_mode).
  const turn2 = stub.requests.slice(before2);
  assert.equal(turnMeta(turn2[0]).thread_id, turnMeta(turn1[0]).thread_id);
  assert.equal(turnMeta(turn2[0]).sandbox_mode, 'workspace-write');
  assert.ok(inputText(turn2[0]).includes(m1), 'session turn 1 is in the resumed history');

  const turns = await sessions.turns.list(s.id, {}, limit());
  assert.equal(turns.data.length, 2);
  for (const t of turns.data) assert.equal(t.status, 'completed');
});

test('an MCP server from the definition: header from env, the call as an mcp_call item', T, async () => {
  const r = await c.responses.create({ model: WITH_MCP, input: 'MCPTOOL: look the answer up with the docs tool' }, limit(200_000));
  assert.equal(r.status, 'completed', JSON.stringify(r.error));
  const call = mcpCalls(r)[0];
  assert.ok(call, `no mcp_call in ${JSON.stringify(r.output.map((i) => i.type))}`);
  assert.equal(call.server_label, 'docs');
  assert.equal(call.name, MCP_TOOL);
  assert.deepEqual(JSON.parse(call.arguments), { q: 'answer' });
  assert.equal(call.output, MCP_RESULT);
  assert.equal(call.status, 'completed');
  const methods = stub.mcpRequests.map((q) => q.body?.method);
  for (const m of ['initialize', 'tools/list', 'tools/call']) assert.ok(methods.includes(m), `MCP ${m} missing: ${methods}`);
  assert.ok(stub.mcpAuthorizations.length > 0 && stub.mcpAuthorizations.every((a) => a === `Bearer ${CANARY}`),
    'the MCP header did not arrive as configured');
});

test("the model's shell commands do not see the provider key", T, async () => {
  const before = stub.requests.length;
  const r = await c.responses.create({ model: AGENT, input: 'ENVCHECK: list the environment' }, limit(200_000));
  assert.equal(r.status, 'completed', JSON.stringify(r.error));
  const call = mcpCalls(r)[0];
  assert.match(JSON.parse(call.arguments).command, /\benv'?$/);
  // What the tool really printed, as codex sent it back to the model (the
  // server redacts the wire copy, so the stub's copy is the one to check).
  const output = stub.requests.slice(before).map((q) => (q.body?.input ?? []).filter((i) => i.type === 'function_call_output')
    .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output))).join('\n')).join('\n');
  assert.match(output, /REALCLI_VISIBLE=visible-to-tools/, 'the listing is there (definition env reaches tools)');
  assert.ok(!output.includes(CANARY), 'the provider key was visible to a tool shell');
  assert.doesNotMatch(output, /ABX_CODEX_/);
});

test('a provider that answers 401 surfaces authentication_error on both wires', T, async () => {
  const before = stub.requests.length;
  const r = await c.responses.create({ model: DENIED, input: 'Please run the shell command: echo hello-from-tool' }, limit(200_000));
  assert.equal(r.status, 'failed');
  assert.equal(r.error?.code, 'authentication_error', JSON.stringify(r.error));
  assert.match(r.error.message, /401/);
  const denied = stub.requests.slice(before);
  assert.ok(denied.length >= 1 && denied.every((q) => q.path === '/deny/v1/responses'), 'codex asked only the stub');

  const sessions = c.beta.agents.sessions;
  const s = await sessions.create({ agent_id: DENIED, environment: { type: 'none' } }, limit());
  const events = await sessions.events.stream(s.id, limit(200_000));
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }] }],
  }, limit());
  let failed;
  for await (const e of events) {
    if (e.type === 'agent.session.turn.failed') failed = e;
    if (e.type === 'agent.session.idle' && failed) break;
  }
  assert.equal(failed.turn.status, 'failed');
  assert.equal(failed.turn.error.code, 'authentication_error', JSON.stringify(failed.turn.error));
});

test('codex talked to the stub only: no proxy attempt, no other path', T, async () => {
  assert.ok(stub.requests.length >= 12, `only ${stub.requests.length} stub requests`);
  assert.deepEqual(stub.stray, [], `codex tried to leave loopback: ${JSON.stringify(stub.stray)}`);
  for (const r of stub.requests) {
    assert.equal(r.method, 'POST');
    assert.match(r.path, /^(\/deny)?\/v1\/responses$/);
    assert.equal(r.headers.originator, 'codex_exec');
    // Analytics off, as the adapter asked.
    if (r.headers['x-codex-turn-metadata']) assert.equal(turnMeta(r).analytics_enabled, false);
  }
});
