// The real Claude Code CLI (@anthropic-ai/claude-code 2.1.328) behind this
// server's runtime `claude-code`, against the scripted Anthropic Messages
// stub (../lib/messages_stub.mjs) on 127.0.0.1:
//  - /v1/responses: two turns chained by previous_response_id (the second
//    with per-turn instructions), the Bash call as an mcp_call item;
//  - /v1/agents/sessions: one session, two turns, the Bash call as a
//    command_execution item;
//  - a rejected key surfaces as authentication_error, fast (the adapter's
//    CLAUDE_CODE_MAX_RETRIES), on both wires;
//  - the CLI talked to the stub only: its proxy is a sink that must stay
//    empty, and every stub request carried the expected key;
//  - the agent's MCP server (secret Authorization header) is reached with
//    the header expanded from the CLI's env (the config file holds ${VAR}).
// The provider api_key is ORACLE_CANARY_VALUE, so run.sh's canary scan proves
// it never reached the server log, the state dir or any response.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { client, limit, collect, messageText, assertUsage, BASE_URL, TOKEN } from '../../oracle/lib/harness.mjs';
import { startMessagesStub } from '../lib/messages_stub.mjs';
import { startStrayTrafficSink } from '../lib/stray_traffic_sink.mjs';

const CANARY = process.env.ORACLE_CANARY_VALUE;
const WORK = process.env.ORACLE_WORK_DIR;
const REALCLI_BIN = process.env.REALCLI_BIN;
const MODEL = 'claude-stub-model';
const TOOL_PROMPT = 'Please run the shell command: echo hello-from-tool';
const NOTOOL_PROMPT = 'NOTOOL: just reply with text, do not run anything.';
const FINAL = 'All done: hello-from-tool';
const NOTOOL_REPLY = 'Resumed fine; no tool needed this time.';
const T = { timeout: 240_000 };
const c = client({ timeout: 200_000 });
const tag = Math.random().toString(36).slice(2, 8);

let stub;
let sink;
let mcp;      // an MCP server (Streamable HTTP) that records the headers it gets
let agent;    // the working agent
let revoked;  // same stub, a key the stub rejects

// A minimal MCP server: answers initialize and tools/list (no tools), and
// records each request's Authorization header. The agent's header is secret:
// the adapter writes "${ABX_MCP_DOCS_AUTHORIZATION}" into the --mcp-config
// file and the value into the CLI's env, so a match here proves Claude's
// ${VAR} expansion end to end.
async function startMcpServer() {
  const seen = { authorizations: [], methods: [] };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.authorizations.push(req.headers.authorization ?? '');
      let msg = null;
      try { msg = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { msg = null; }
      seen.methods.push(msg?.method ?? `${req.method}`);
      if (req.method !== 'POST' || !msg) { res.writeHead(405); res.end(); return; }
      if (msg.id === undefined) { res.writeHead(202); res.end(); return; } // a notification
      const reply = (body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
      };
      if (msg.method === 'initialize')
        return reply({ result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'realcli-docs', version: '1.0.0' } } });
      if (msg.method === 'tools/list') return reply({ result: { tools: [] } });
      return reply({ error: { code: -32601, message: `method not found: ${msg.method}` } });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.url = `http://127.0.0.1:${server.address().port}/mcp`;
  seen.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return seen;
}

async function register(name, apiKey) {
  const res = await fetch(`${BASE_URL}/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      runtime: 'claude-code',
      model: MODEL,
      instructions: 'You are the realcli test agent. MARK-AGENT-INSTRUCTIONS',
      provider: { base_url: stub.url, api_key: apiKey },
      workspace: { path: path.join(WORK, `ws-${name}`) },
      permissions: 'full_access',
      mcp_servers: { docs: { url: mcp.url, headers: { Authorization: `Bearer ${apiKey}` } } },
      env: {
        // The child's PATH names the real CLI whatever the server's PATH holds
        // (fake_agents/ has a fake `claude` too).
        PATH: `${REALCLI_BIN}:/usr/local/bin:/usr/bin:/bin`,
        // Outside hosts go to the sink (which refuses them); loopback stays direct.
        HTTP_PROXY: sink.url, HTTPS_PROXY: sink.url, http_proxy: sink.url, https_proxy: sink.url,
        NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
      },
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `POST /v1/agents ${name}: ${res.status} ${text}`);
  return name;
}

// The stub requests made while fn() ran.
async function requestsDuring(fn) {
  const from = stub.requests.length;
  const value = await fn();
  return { value, requests: stub.requests.slice(from) };
}

const sessionIdOf = (requests) => {
  const ids = new Set(requests.map((r) => r.headers['x-claude-code-session-id']));
  assert.equal(ids.size, 1, `one Claude session per turn, got ${[...ids].join(', ')}`);
  return [...ids][0];
};
const allText = (body) => JSON.stringify(body?.messages ?? []);
const systemText = (body) => JSON.stringify(body?.system ?? '');
const sumInput = (requests) => requests.reduce((n, r) => n + (r.input_tokens ?? 0), 0);

before(async () => {
  assert.ok(CANARY && WORK && REALCLI_BIN, 'run through tests/realcli/run.sh');
  stub = await startMessagesStub({ apiKey: CANARY });
  sink = await startStrayTrafficSink();
  mcp = await startMcpServer();
  agent = await register(`realcli-claude-${tag}`, CANARY);
  revoked = await register(`realcli-claude-revoked-${tag}`, `${CANARY}-revoked`);
});

after(async () => {
  await stub?.close();
  await sink?.close();
  await mcp?.close();
});

test('GET /v1/agents/runtimes: claude-code is installed, real, with every capability', T, async () => {
  const res = await fetch(`${BASE_URL}/agents/runtimes`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  const runtime = (await res.json()).data.find((r) => r.name === 'claude-code');
  assert.ok(runtime, 'claude-code is listed');
  assert.deepEqual(runtime.aliases, ['claude']);
  assert.equal(runtime.installed, true);
  assert.equal(runtime.experimental, false);
  // The probe uses the server's PATH, where run.sh puts the real CLIs first.
  assert.equal(runtime.path, `${REALCLI_BIN}/claude`);
  assert.match(runtime.version ?? '', /^2\.1\.328 \(Claude Code\)/);
  for (const k of ['resume', 'partial_deltas', 'mcp', 'system_prompt', 'base_url', 'max_turns', 'budget'])
    assert.equal(runtime.capabilities[k], true, `capability ${k}`);
});

test('/v1/responses: two turns with previous_response_id continuity; Bash is an mcp_call item', T, async () => {
  // Turn 1, streamed.
  const t1 = await requestsDuring(async () => collect(await c.responses.create(
    { model: agent, input: TOOL_PROMPT, stream: true }, limit(200_000))));
  const events = t1.value;
  const types = events.map((e) => e.type);
  assert.equal(types.at(-1), 'response.completed', `last event ${types.at(-1)}: ${JSON.stringify(events.at(-1)).slice(0, 600)}`);
  assert.ok(types.includes('response.output_text.delta'), 'text streamed as deltas');
  assert.ok(types.includes('response.mcp_call.completed'), `mcp_call completed (events: ${types.join(', ')})`);
  const r1 = events.at(-1).response;
  assert.equal(r1.status, 'completed');

  const calls = r1.output.filter((i) => i.type === 'mcp_call');
  assert.equal(calls.length, 1, `one tool call: ${JSON.stringify(r1.output)}`);
  const call = calls[0];
  assert.equal(call.server_label, 'claude-code');
  assert.equal(call.name, 'command_execution');
  assert.equal(JSON.parse(call.arguments).command, 'echo hello-from-tool');
  assert.equal(call.output.trim(), 'hello-from-tool', 'the real Bash tool ran');
  assert.equal(call.status, 'completed');
  assert.equal(call.error, null);
  const messages = r1.output.filter((i) => i.type === 'message');
  assert.equal(messages.at(-1).content[0].text, FINAL);
  assert.ok(r1.output.some((i) => i.type === 'reasoning' && i.summary.length), 'thinking became a reasoning item');
  // Streamed text equals the final text, once (deltas and full blocks de-duplicated).
  const finalId = messages.at(-1).id;
  const streamed = events.filter((e) => e.type === 'response.output_text.delta' && e.item_id === finalId).map((e) => e.delta).join('');
  assert.equal(streamed, FINAL);

  // What the CLI sent: the tool turn then the final turn, one Claude session,
  // the agent's model and instructions.
  assert.deepEqual(t1.requests.map((r) => r.step), ['tool', 'final']);
  const claudeSession = sessionIdOf(t1.requests);
  for (const r of t1.requests) {
    assert.equal(r.body.model, MODEL);
    assert.ok(systemText(r.body).includes('MARK-AGENT-INSTRUCTIONS'), 'agent instructions in the system prompt');
  }
  // Usage is this turn's: the sum of what the stub reported for its requests.
  assertUsage(r1.usage);
  assert.equal(r1.usage.input_tokens, sumInput(t1.requests));
  assert.ok(r1.usage.output_tokens > 0);

  // Turn 2, not streamed, per-turn instructions.
  const t2 = await requestsDuring(() => c.responses.create({
    model: agent, input: NOTOOL_PROMPT, previous_response_id: r1.id, instructions: 'MARK-TURN-TWO',
  }, limit(200_000)));
  const r2 = t2.value;
  assert.equal(r2.status, 'completed', `turn 2: ${JSON.stringify(r2.error)}`);
  assert.equal(messageText(r2), NOTOOL_REPLY);
  assert.equal(r2.output.filter((i) => i.type === 'mcp_call').length, 0);
  assert.deepEqual(t2.requests.map((r) => r.step), ['text']);
  // Continuity is Claude's own resume: same session, turn 1 in the history.
  assert.equal(sessionIdOf(t2.requests), claudeSession);
  assert.ok(allText(t2.requests[0].body).includes(FINAL), 'turn 1 answer in the resumed history');
  assert.ok(allText(t2.requests[0].body).includes('hello-from-tool'), 'turn 1 tool result in the history');
  assert.ok(systemText(t2.requests[0].body).includes('MARK-TURN-TWO'), 'per-turn instructions reached a resumed turn');
  assert.equal(r2.usage.input_tokens, sumInput(t2.requests), 'turn 2 usage is per turn, not cumulative');
});

test('/v1/agents/sessions: one session, two turns; Bash is a command_execution item', T, async () => {
  const sessions = c.beta.agents.sessions;
  const s = await sessions.create({ agent_id: agent, environment: { type: 'none' } }, limit());
  const t1 = await requestsDuring(() => sessions.stream(s.id, { input: TOOL_PROMPT }, limit(200_000)).finalResult());
  assert.equal(t1.value.turn.status, 'completed', JSON.stringify(t1.value.turn.error));
  assert.ok(t1.value.output_text.endsWith(FINAL), `output_text ${t1.value.output_text}`);
  const t2 = await requestsDuring(() => sessions.stream(s.id, { input: NOTOOL_PROMPT }, limit(200_000)).finalResult());
  assert.equal(t2.value.turn.status, 'completed', JSON.stringify(t2.value.turn.error));
  assert.equal(t2.value.output_text, NOTOOL_REPLY);

  // A new Claude session for this agents session, resumed by turn 2.
  const claudeSession = sessionIdOf(t1.requests);
  assert.equal(sessionIdOf(t2.requests), claudeSession);
  assert.ok(allText(t2.requests[0].body).includes(FINAL), 'turn 1 answer in the resumed history');

  const items = (await sessions.items.list(s.id, { order: 'asc' }, limit())).data;
  const commands = items.filter((i) => i.type === 'command_execution');
  assert.equal(commands.length, 1, `one command item: ${JSON.stringify(items.map((i) => i.type))}`);
  assert.equal(commands[0].command, 'echo hello-from-tool');
  assert.equal(commands[0].exit_code, 0);
  assert.equal(commands[0].output.trim(), 'hello-from-tool');
  assert.equal(commands[0].status, 'completed');
  const answers = items.filter((i) => i.type === 'message' && i.role === 'assistant').map((i) => i.content[0].text);
  assert.deepEqual(answers.slice(-2), [FINAL, NOTOOL_REPLY]);
  const turns = (await sessions.turns.list(s.id, {}, limit())).data;
  assert.equal(turns.length, 2);
  for (const t of turns) assert.equal(t.status, 'completed');
});

test('a rejected key: authentication_error on both wires, without minutes of retries', T, async () => {
  const started = Date.now();
  const t = await requestsDuring(() => c.responses.create({ model: revoked, input: TOOL_PROMPT }, limit(200_000)));
  const seconds = (Date.now() - started) / 1000;
  const r = t.value;
  assert.equal(r.status, 'failed');
  assert.equal(r.error?.code, 'authentication_error', JSON.stringify(r.error));
  assert.match(r.error.message, /Invalid API key/);
  assert.equal(messageText(r), '', 'the error text is not an answer');
  // CLAUDE_CODE_MAX_RETRIES=2: the first try and two retries, then it stops
  // (Claude's default of 10 retries outlives a 60 s timeout).
  assert.ok(t.requests.length >= 1 && t.requests.length <= 3, `${t.requests.length} requests`);
  for (const req of t.requests) assert.equal(req.step, 'auth_error_401');
  assert.ok(seconds < 60, `the failure took ${seconds} s`);

  const sessions = c.beta.agents.sessions;
  const s = await sessions.create({ agent_id: revoked, environment: { type: 'none' } }, limit());
  const result = await sessions.stream(s.id, { input: TOOL_PROMPT }, limit(200_000)).finalResult().catch((e) => e);
  const turns = (await sessions.turns.list(s.id, {}, limit())).data;
  assert.equal(turns.length, 1, `turns: ${JSON.stringify(turns)} (stream result: ${result?.message ?? ''})`);
  assert.equal(turns[0].status, 'failed');
  assert.equal(turns[0].error?.code, 'authentication_error', JSON.stringify(turns[0].error));
});

test('the CLI talked to the stub only', T, async () => {
  assert.deepEqual(sink.attempts, [], 'requests to outside hosts through the proxy');
  assert.ok(stub.requests.length > 0);
  for (const r of stub.requests) {
    assert.equal(`${r.method} ${r.path}`, 'POST /v1/messages', `unexpected request ${r.method} ${r.path}`);
    assert.equal(r.headers['anthropic-version'], '2023-06-01');
  }
  // The MCP server got the secret header, expanded from the CLI's env.
  assert.ok(mcp.methods.includes('initialize'), `MCP methods: ${mcp.methods.join(', ')}`);
  assert.ok(mcp.authorizations.includes(`Bearer ${CANARY}`), 'the MCP header reached the server');
  for (const a of mcp.authorizations) assert.ok(!a.includes('${'), 'an unexpanded ${VAR} reached the MCP server');
  // The working agent's requests carried its key; the revoked agent's did not.
  assert.ok(stub.requests.some((r) => r.key_matches === true));
  for (const r of stub.requests.filter((x) => x.step === 'auth_error_401')) assert.equal(r.key_matches, false);
});
