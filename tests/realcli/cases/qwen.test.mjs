// The real Qwen Code CLI (@qwen-code/qwen-code 0.24.4) behind this server's
// `runtime: qwen-code` adapter, against the Chat Completions stub in
// ../lib/chat_stub.mjs (127.0.0.1, port 0), driven with the official
// openai@7.55.0 client:
//   - /v1/responses: two turns joined by previous_response_id (qwen resumes
//     its own session), the shell call as an mcp_call item, per-turn usage
//     (qwen prints session totals; the server subtracts the earlier turns);
//   - /v1/agents/sessions: two turns with continuity, the shell call as a
//     command_execution item;
//   - an agent whose key the stub refuses (401): authentication_error on both
//     wires; it is a workspace_write agent with an MCP server, and that server
//     (a listener here) gets the secret header, which travelled in the env
//     (qwen skips MCP servers of workspace settings unless in yolo mode; the
//     adapter's settings layer is not gated);
//   - nothing but loopback was contacted: every agent's HTTP(S)_PROXY is a
//     sink that records any attempt.
// The provider key and the MCP header are ORACLE_CANARY_VALUE, so run.sh's
// canary scan proves neither reached a log, the state dir or a response.
// qwen needs 5-7 s per start, so the case keeps to six turns.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BASE_URL, TOKEN, client, limit, collect, assertUsage } from '../../oracle/lib/harness.mjs';
import { startChatStub, FINAL_TEXT, NOTOOL_TEXT, INTRO_TEXT } from '../lib/chat_stub.mjs';
import { startStrayTrafficSink } from '../lib/stray_traffic_sink.mjs';

const CANARY = process.env.ORACLE_CANARY_VALUE;
const WORK_DIR = process.env.ORACLE_WORK_DIR;
const REALCLI_BIN = process.env.REALCLI_BIN;
const c = client({ timeout: 180_000 });
const T = { timeout: 240_000 };
const suffix = Math.random().toString(36).slice(2, 8);
const AGENT = `realcli-qwen-${suffix}`;
const SESSIONS = `realcli-qwen-sessions-${suffix}`;
const DENIED = `realcli-qwen-401-${suffix}`;
const INSTRUCTIONS = `Instructions marker ${suffix}: keep answers short.`;
let stub, sink, mcp;

const marker = (what) => `[${what}-${Math.random().toString(36).slice(2, 10)}]`;
const bodyText = (req) => JSON.stringify(req.body?.messages ?? []);

// This turn's usage as the stub reported it (qwen's totals include its
// background requests, which went to the stub too).
function stubUsage(requests) {
  const sum = { input: 0, output: 0 };
  for (const r of requests) {
    const body = r.body ?? {};
    if (!r.reply || r.reply.step === 'auth_error_401' || !body.stream_options?.include_usage) continue;
    sum.input += Math.ceil(JSON.stringify(body).length / 4);
    sum.output += Math.ceil(((r.reply.text ?? '').length + JSON.stringify(r.reply.args ?? '').length) / 4);
  }
  return sum;
}

// A stand-in MCP server: records the Authorization header of every request
// and answers 404, so qwen gives up on it and goes on with its own tools.
async function startMcpListener() {
  const seen = { authorizations: [], url: '' };
  const server = http.createServer((req, res) => {
    seen.authorizations.push(req.headers.authorization ?? '');
    req.resume();
    res.writeHead(404);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.url = `http://127.0.0.1:${server.address().port}/mcp`;
  seen.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return seen;
}

async function register(name, { key = CANARY, permissions = 'full_access', mcpServers } = {}) {
  const workspace = path.join(WORK_DIR, `ws-${name}`);
  fs.mkdirSync(workspace, { recursive: true });
  const definition = {
    name, runtime: 'qwen-code', model: 'stub-model', instructions: INSTRUCTIONS, permissions,
    provider: { base_url: stub.url, api_key: key },
    workspace: { path: workspace },
    env: {
      // The child's PATH names the real qwen whatever the server's PATH holds
      // (fake_agents/ has a replaying `qwen` too).
      PATH: `${REALCLI_BIN}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HTTP_PROXY: sink.url, HTTPS_PROXY: sink.url, http_proxy: sink.url, https_proxy: sink.url,
      NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
    },
    limits: { turn_timeout_s: 150, idle_timeout_s: 120 },
  };
  if (mcpServers) definition.mcp_servers = mcpServers;
  const created = await c.beta.agents.create(definition, limit());
  assert.equal(created.id, name);
  assert.ok(!JSON.stringify(created).includes(CANARY), 'a secret came back from POST /v1/agents');
}

before(async () => {
  assert.ok(CANARY && WORK_DIR && REALCLI_BIN, 'run through tests/realcli/run.sh');
  stub = await startChatStub({ apiKey: CANARY });
  sink = await startStrayTrafficSink();
  mcp = await startMcpListener();
  await register(AGENT);
  await register(SESSIONS);
  // workspace_write (qwen's auto-edit) with an MCP server: qwen connects it at
  // start-up, before its first model call fails.
  await register(DENIED, {
    key: `sk-wrong-${suffix}`, permissions: 'workspace_write',
    mcpServers: { docs: { url: mcp.url, headers: { Authorization: `Bearer ${CANARY}` } } },
  });
});

after(async () => {
  await stub?.close();
  await sink?.close();
  await mcp?.close();
});

const mcpCalls = (response) => (response.output ?? []).filter((i) => i.type === 'mcp_call');
const lastMessage = (response) => response.output.filter((i) => i.type === 'message').at(-1);

test('GET /v1/agents/runtimes lists qwen-code and an experimental cursor', T, async () => {
  const r = await fetch(`${BASE_URL}/agents/runtimes`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200);
  const data = (await r.json()).data;
  const qwen = data.find((x) => x.name === 'qwen-code');
  assert.ok(qwen, 'qwen-code is not a registered runtime');
  assert.deepEqual(qwen.aliases, ['qwen']);
  assert.equal(qwen.installed, true);
  assert.equal(qwen.version, '0.24.4');
  assert.equal(qwen.experimental, false);
  assert.equal(qwen.capabilities.resume, true);
  assert.equal(qwen.capabilities.mcp, true);
  const cursor = data.find((x) => x.name === 'cursor');
  assert.ok(cursor, 'cursor is not a registered runtime');
  assert.deepEqual(cursor.aliases, ['cursor-agent']);
  assert.equal(cursor.experimental, true);
  assert.equal(cursor.capabilities.base_url, false);
});

test('/v1/responses: two turns with previous_response_id continuity, the shell call as mcp_call', T, async () => {
  const m1 = marker('turn1');
  const before1 = stub.requests.length;
  const r1 = await c.responses.create({ model: AGENT, input: `Please run the shell command: echo hello-from-tool ${m1}` }, limit(200_000));
  assert.equal(r1.status, 'completed', `turn 1: ${JSON.stringify(r1.error)}`);
  const [call] = mcpCalls(r1);
  assert.ok(call, `no mcp_call in ${JSON.stringify(r1.output.map((i) => i.type))}`);
  assert.equal(call.server_label, 'qwen-code');
  assert.equal(call.name, 'command_execution');
  assert.equal(JSON.parse(call.arguments).command, 'echo hello-from-tool');
  assert.equal(call.output, 'hello-from-tool');
  assert.equal(call.status, 'completed');
  assert.equal(lastMessage(r1).content[0].text, FINAL_TEXT);
  assert.ok(r1.output.some((i) => i.type === 'message' && i.content[0].text === INTRO_TEXT), 'the text before the tool call');
  assert.ok(r1.output.some((i) => i.type === 'reasoning' && /shell tool/.test(i.summary[0]?.text ?? '')), 'reasoning item');

  const turn1 = stub.requests.slice(before1);
  assert.ok(turn1.length >= 2, 'tool request + final request');
  assert.ok(bodyText(turn1[0]).includes(m1), 'the prompt reached the model');
  assert.ok(bodyText(turn1[0]).includes(INSTRUCTIONS), 'the instructions reached the system prompt');
  assert.match(turn1[0].auth, /^Bearer /);
  assert.equal(turn1[0].auth, `Bearer ${CANARY}`, 'the key reached the stub through OPENAI_API_KEY');
  assertUsage(r1.usage);
  assert.deepEqual([r1.usage.input_tokens, r1.usage.output_tokens],
    [stubUsage(turn1).input, stubUsage(turn1).output], 'turn 1 usage');

  // Turn 2, streamed, resuming qwen's session; text only.
  const m2 = marker('turn2');
  const before2 = stub.requests.length;
  const stream = await c.responses.create({
    model: AGENT, previous_response_id: r1.id, stream: true, input: `NOTOOL: just reply with text ${m2}`,
  }, limit(200_000));
  const events = await collect(stream);
  const types = events.map((e) => e.type);
  assert.equal(types.at(-1), 'response.completed', types.join(', '));
  assert.ok(types.includes('response.output_text.delta'));
  const r2 = events.at(-1).response;
  assert.equal(r2.previous_response_id, r1.id);
  assert.equal(lastMessage(r2).content[0].text, NOTOOL_TEXT);
  const deltas = events.filter((e) => e.type === 'response.output_text.delta' && e.item_id === lastMessage(r2).id);
  assert.equal(deltas.map((e) => e.delta).join(''), NOTOOL_TEXT, 'deltas and the final text agree (no duplicate)');
  const turn2 = stub.requests.slice(before2);
  assert.ok(bodyText(turn2[0]).includes(m1), 'turn 1 is in the resumed history');
  assert.ok(bodyText(turn2[0]).includes(m2));
  // qwen printed the session's totals; the server reports this turn's share.
  assertUsage(r2.usage);
  assert.deepEqual([r2.usage.input_tokens, r2.usage.output_tokens],
    [stubUsage(turn2).input, stubUsage(turn2).output], 'turn 2 usage is per turn');
});

test('/v1/agents/sessions: two turns with continuity, the shell call as command_execution', T, async () => {
  const sessions = c.beta.agents.sessions;
  const s = await sessions.create({ agent_id: SESSIONS, environment: { type: 'none' } }, limit());
  const m1 = marker('session1');
  const events = await sessions.events.stream(s.id, limit(200_000));
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text: `Please run the shell command: echo hello-from-tool ${m1}` }] }] }],
  }, limit());
  const seen = [];
  for await (const e of events) {
    seen.push(e);
    if (e.type === 'agent.session.idle' && seen.some((x) => /^agent\.session\.turn\.(completed|failed)$/.test(x.type))) break;
  }
  const types = seen.map((e) => e.type);
  assert.ok(types.includes('agent.session.turn.completed'), types.join(', '));
  assert.ok(seen.some((e) => e.type === 'agent.session.turn.item.added' && e.item.type === 'command_execution'), 'tool item.added');
  const tool = seen.find((e) => e.type === 'agent.session.turn.item.done' && e.item.type === 'command_execution');
  assert.ok(tool, `no command_execution item.done in ${types.join(', ')}`);
  assert.equal(tool.item.command, 'echo hello-from-tool');
  assert.equal(tool.item.output, 'hello-from-tool');
  assert.equal(tool.item.exit_code, 0);
  assert.equal(tool.item.status, 'completed');
  const final = seen.filter((e) => e.type === 'agent.session.turn.item.done' && e.item.type === 'message').at(-1);
  assert.equal(final.item.content[0].text, FINAL_TEXT);

  const m2 = marker('session2');
  const before2 = stub.requests.length;
  const result = await sessions.stream(s.id, { input: `NOTOOL: reply with text ${m2}` }, limit(200_000)).finalResult();
  assert.equal(result.turn.status, 'completed', JSON.stringify(result.turn.error));
  assert.equal(result.output_text, NOTOOL_TEXT);
  assert.ok(bodyText(stub.requests[before2]).includes(m1), 'session turn 1 is in the resumed history');
  const turns = await sessions.turns.list(s.id, {}, limit());
  assert.equal(turns.data.length, 2);
});

test('a key the provider refuses (401) surfaces authentication_error on both wires; MCP header from env', T, async () => {
  const r = await c.responses.create({ model: DENIED, input: 'Please run the shell command: echo hello-from-tool' }, limit(200_000));
  assert.equal(r.status, 'failed');
  assert.equal(r.error?.code, 'authentication_error', JSON.stringify(r.error));
  assert.match(r.error.message, /401/);
  assert.equal((r.output ?? []).filter((i) => i.type === 'message').length, 0, 'the 401 text is not an assistant message');

  const s = await c.beta.agents.sessions.create({ agent_id: DENIED, environment: { type: 'none' } }, limit());
  // The SDK's collector rejects a failed turn with the turn attached.
  const err = await c.beta.agents.sessions.stream(s.id, { input: 'NOTOOL: hello' }, limit(200_000))
    .finalResult().then(() => null, (e) => e);
  assert.ok(err?.turn, `expected a failed turn, got ${err}`);
  assert.equal(err.turn.status, 'failed');
  assert.equal(err.turn.error?.code, 'authentication_error', JSON.stringify(err.turn.error));
  assert.deepEqual(err.messages, [], 'the 401 text is not an assistant message');

  // Both runs connected the definition's MCP server with the secret header,
  // expanded by qwen from the env (the settings file holds a placeholder).
  assert.ok(mcp.authorizations.includes(`Bearer ${CANARY}`),
    `MCP saw ${JSON.stringify(mcp.authorizations.map((a) => a.slice(0, 12)))}`);
});

test('qwen talked to the stub only', T, async () => {
  assert.deepEqual(sink.attempts, [], 'a CLI tried to leave loopback through the proxy');
  assert.ok(stub.requests.length >= 6);
  for (const r of stub.requests) {
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/chat/completions');
  }
  assert.ok(stub.requests.every((r) => r.body?.model === 'stub-model'));
  // The real CLI made them (the fake in fake_agents/ replays without a network).
  assert.ok(stub.requests.every((r) => /^QwenCode\/0\.24\.4 /.test(r.ua)), stub.requests[0]?.ua);
});
