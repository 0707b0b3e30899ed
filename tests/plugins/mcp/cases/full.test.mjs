// The mcp suite under full.yaml: the official MCP TypeScript SDK client
// against the real server's /mcp — initialize, tool lists of two identities,
// every non-browser tool called once, a streamed shell call with progress,
// a denied call, bad arguments and methods, resources, session termination.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BASE, BASE_DIR, TOKENS, connect, rawPost, textOf, b64 } from '../lib/client.mjs';

let admin;
let reader;
before(async () => {
  admin = await connect('admin');
  reader = await connect('reader');
});
after(async () => {
  await admin?.client.close();
  await reader?.client.close();
});

const call = (who, name, args) => who.client.callTool({ name, arguments: args });
const okText = async (who, name, args) => {
  const result = await call(who, name, args);
  assert.equal(result.isError, false, `${name}: ${textOf(result)}`);
  return textOf(result);
};

test('initialize: server info, capabilities without prompts, an unguessable session id', () => {
  const info = admin.client.getServerVersion();
  assert.equal(info.name, 'agent-sandbox-server');
  const caps = admin.client.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.ok(caps.resources, 'resources capability');
  assert.equal(caps.prompts, undefined, 'prompts are not advertised');
  assert.match(admin.transport.sessionId, /^[0-9a-f]{32}$/);
  assert.notEqual(admin.transport.sessionId, reader.transport.sessionId);
  assert.equal(admin.transport.protocolVersion, '2025-06-18');
});

test('tools/list follows the policy: reader sees only what its scopes allow', async () => {
  const names = async (who) => (await who.client.listTools()).tools.map((t) => t.name).sort();
  const all = await names(admin);
  const mine = await names(reader);
  for (const t of ['file_read', 'file_write', 'shell', 'process_start', 'code_run', 'git_status',
    'system_info', 'command_hello'])
    assert.ok(all.includes(t), `admin is offered ${t}: ${all}`);
  assert.ok(!all.some((t) => t.startsWith('browser_')), 'the browser group is off');
  assert.deepEqual(mine, ['file_list', 'file_read', 'file_search', 'file_stat', 'system_info']);
});

test('input schemas come from the routes\' OpenAPI fragments', async () => {
  const doc = await (await fetch(`${BASE}/openapi.json`, {
    headers: { Authorization: `Bearer ${TOKENS.admin}` },
  })).json();
  const tools = (await admin.client.listTools()).tools;
  const read = tools.find((t) => t.name === 'file_read');
  const download = Object.values(doc.paths).map((item) => item.get)
    .find((op) => op?.operationId === 'download');
  const param = download.parameters.find((p) => p.name === 'path');
  assert.equal(read.inputSchema.properties.path.description, param.description);
  assert.deepEqual(read.inputSchema.required, ['path']);
  const shell = tools.find((t) => t.name === 'shell');
  assert.ok(shell.inputSchema.properties.command.oneOf, 'ProcessCommand inlined');
  const hello = tools.find((t) => t.name === 'command_hello');
  assert.equal(hello.inputSchema.properties.name.default, 'World');
});

test('file tools: write, read, list, stat, search, mkdir, move, delete', async () => {
  await okText(admin, 'file_write', { path: 'notes/a.txt', content_base64: b64('hello mcp\n') });
  assert.equal(fs.readFileSync(path.join(BASE_DIR, 'notes/a.txt'), 'utf8'), 'hello mcp\n');
  assert.equal(await okText(admin, 'file_read', { path: 'notes/a.txt' }), 'hello mcp\n');
  assert.match(await okText(admin, 'file_list', { path: 'notes' }), /"a\.txt"/);
  assert.match(await okText(admin, 'file_stat', { path: 'notes/a.txt' }), /"size":10/);
  assert.match(await okText(admin, 'file_search', { pattern: '*.txt' }), /a\.txt/);
  await okText(admin, 'file_mkdir', { path: 'made' });
  assert.ok(fs.statSync(path.join(BASE_DIR, 'made')).isDirectory());
  await okText(admin, 'file_move', { source: 'notes/a.txt', destination: 'made/b.txt' });
  assert.ok(fs.existsSync(path.join(BASE_DIR, 'made/b.txt')));
  await okText(admin, 'file_delete', { path: 'made/b.txt' });
  assert.ok(!fs.existsSync(path.join(BASE_DIR, 'made/b.txt')));
});

test('shell, system_info, code_run and a command', async () => {
  assert.match(await okText(admin, 'shell', { command: 'echo shell-ok' }), /shell-ok/);
  assert.match(await okText(admin, 'system_info', {}), /"hostname"|"os"|"platform"/);
  assert.match(await okText(admin, 'code_run', { language: 'python', code: 'print(6*7)' }), /42/);
  assert.match(await okText(admin, 'command_hello', { name: 'MCP' }), /Hello, MCP!/);
});

test('background process: start, stdin, output, list, signal', async () => {
  const started = JSON.parse(await okText(admin, 'process_start', { command: ['cat'] }));
  assert.ok(started.pid > 0);
  // The fragment types pid as a string (it is a path segment); a number is taken as its text.
  await okText(admin, 'process_stdin', { pid: String(started.pid), data: 'ping\n' });
  let output = '';
  for (let i = 0; i < 50 && !output.includes('ping'); i++) {
    output = JSON.parse(await okText(admin, 'process_output', { pid: started.pid })).output;
    if (!output.includes('ping')) await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(output, /ping/);
  assert.match(await okText(admin, 'process_list', {}), new RegExp(`"pid":${started.pid}`));
  await okText(admin, 'process_signal', { pid: started.pid, signal: 15 });
});

test('git_status and git_diff on a repository made with the shell tool', async () => {
  await okText(admin, 'shell', {
    command: ['sh', '-c', 'git init -q repo && cd repo && echo x > f && git add f'],
  });
  assert.match(await okText(admin, 'git_status', { path: 'repo' }), /"f"/);
  const diff = await okText(admin, 'git_diff', { path: 'repo', staged: 'true' });
  assert.match(diff, /\+x/);
});

test('a streamed shell call reports each line as a progress notification', async () => {
  const progress = [];
  const result = await admin.client.callTool(
    { name: 'shell', arguments: { command: ['sh', '-c', 'echo one; echo two; echo three'] } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p) },
  );
  assert.equal(result.isError, false);
  const messages = progress.map((p) => p.message);
  assert.deepEqual(messages.slice(0, 3), ['one', 'two', 'three']);
  assert.deepEqual(progress.map((p) => p.progress).slice(0, 3), [1, 2, 3]);
  assert.match(textOf(result), /one\ntwo\nthree/);
});

test('a denied call is a tool error naming the rule, as the 403 does', async () => {
  const denied = await call(reader, 'file_write', { path: 'x.txt', content_base64: b64('x') });
  assert.equal(denied.isError, true);
  assert.match(textOf(denied), /HTTP 403/);
  assert.match(textOf(denied), /missing_scope/);
  assert.ok(!fs.existsSync(path.join(BASE_DIR, 'x.txt')));
  fs.writeFileSync(path.join(BASE_DIR, 'secret.txt'), 'top');
  const guarded = await call(admin, 'file_read', { path: 'secret.txt' });
  assert.equal(guarded.isError, true);
  const http = await fetch(`${BASE}/download?path=secret.txt`, {
    headers: { Authorization: `Bearer ${TOKENS.admin}` },
  });
  assert.equal(http.status, 403);
  const body = await http.text();
  assert.ok(textOf(guarded).endsWith(body), `${textOf(guarded)} vs ${body}`);
});

test('tool calls are audited like the routes they stand for', async () => {
  const recent = await (await fetch(`${BASE}/audit/recent?limit=200`, {
    headers: { Authorization: `Bearer ${TOKENS.admin}` },
  })).json();
  const records = recent.records ?? recent.data ?? recent;
  const ids = records.map((r) => `${r.identity}:${r.endpoint}:${r.decision}`);
  assert.ok(ids.includes('reader:upload:deny'), ids.slice(0, 20).join(' '));
  assert.ok(ids.includes('admin:code_run:allow'));
});

test('bad arguments and unknown tools are JSON-RPC errors; the server goes on', async () => {
  await assert.rejects(call(admin, 'file_read', { path: { a: 1 } }), (e) => e.code === -32602);
  await assert.rejects(call(admin, 'file_write', { path: 'n.txt', content_base64: 5 }),
    (e) => e.code === -32602);
  await assert.rejects(call(admin, 'file_read', {}), (e) => e.code === -32602);
  await assert.rejects(call(admin, 'no_such_tool', {}), (e) => e.code === -32602);
  await assert.rejects(call(admin, 'command_hello', { nope: 1 }), (e) => e.code === -32602);
  assert.equal(await okText(admin, 'file_read', { path: 'notes/../secret.txt' }).catch(() => 'x'), 'x');
  assert.match(await okText(admin, 'shell', { command: 'echo still-up' }), /still-up/);
});

test('transport errors: parse error, unknown method, missing session, bad version, GET', async () => {
  const sid = { 'Mcp-Session-Id': admin.transport.sessionId };
  const parse = await rawPost('admin', '{"jsonrpc":', sid);
  assert.equal(parse.status, 400);
  assert.equal(parse.json.error.code, -32700);
  const unknown = await rawPost('admin', { jsonrpc: '2.0', id: 7, method: 'nope/nope' }, sid);
  assert.equal(unknown.status, 200);
  assert.equal(unknown.json.error.code, -32601);
  assert.equal(unknown.json.id, 7);
  const missing = await rawPost('admin', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  assert.equal(missing.status, 400);
  const version = await rawPost('admin', { jsonrpc: '2.0', id: 1, method: 'ping' },
    { ...sid, 'MCP-Protocol-Version': '1999-01-01' });
  assert.equal(version.status, 400);
  const notification = await rawPost('admin', { jsonrpc: '2.0', method: 'notifications/x' }, sid);
  assert.equal(notification.status, 202);
  const batch = await rawPost('admin', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], sid);
  assert.equal(batch.json.error.code, -32600, 'no batches in 2025-06-18');
  const get = await fetch(`${BASE}/mcp`, { headers: { Authorization: `Bearer ${TOKENS.admin}` } });
  assert.equal(get.status, 405);
  const anonymous = await rawPost('admin', { jsonrpc: '2.0', id: 1, method: 'ping' },
    { ...sid, Authorization: 'Bearer wrong' });
  assert.equal(anonymous.status, 401);
});

test('a 2025-03-26 session takes batches', async () => {
  const init = await rawPost('admin', {
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  assert.equal(init.json.result.protocolVersion, '2025-03-26');
  const sid = { 'Mcp-Session-Id': init.headers.get('mcp-session-id') };
  const batch = await rawPost('admin', [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'nope' },
  ], sid);
  assert.equal(batch.status, 200);
  assert.deepEqual(batch.json.map((m) => m.id), [1, 2]);
  assert.equal(batch.json[1].error.code, -32601);
});

test('resources: files under the allowed paths, read-only, as file:// URIs', async () => {
  fs.writeFileSync(path.join(BASE_DIR, 'readme.md'), '# resource\n');
  const { resources } = await admin.client.listResources();
  const uri = `file://${BASE_DIR}/readme.md`;
  assert.ok(resources.some((r) => r.uri === uri), resources.map((r) => r.uri).join(' '));
  const read = await admin.client.readResource({ uri });
  assert.equal(read.contents[0].text, '# resource\n');
  await assert.rejects(admin.client.readResource({ uri: `file://${BASE_DIR}/secret.txt` }));
});

test('a session belongs to its identity, and DELETE ends it (then 404)', async () => {
  const sid = admin.transport.sessionId;
  const foreign = await rawPost('reader', { jsonrpc: '2.0', id: 1, method: 'ping' },
    { 'Mcp-Session-Id': sid });
  assert.equal(foreign.status, 404);
  const other = await connect('admin');
  const otherId = other.transport.sessionId;
  await other.transport.terminateSession();
  const after = await rawPost('admin', { jsonrpc: '2.0', id: 1, method: 'ping' },
    { 'Mcp-Session-Id': otherId });
  assert.equal(after.status, 404);
  const ping = await rawPost('admin', { jsonrpc: '2.0', id: 1, method: 'ping' },
    { 'Mcp-Session-Id': sid });
  assert.equal(ping.status, 200, 'the first session is still open');
});

test('metrics: tool calls by tool and outcome, sessions open', async () => {
  const text = await (await fetch(`${BASE}/metrics`, {
    headers: { Authorization: `Bearer ${TOKENS.admin}` },
  })).text();
  assert.match(text, /abx_mcp_tool_calls_total\{tool="file_write",outcome="denied"\} 1/);
  assert.match(text, /abx_mcp_tool_calls_total\{tool="shell",outcome="ok"\} \d+/);
  assert.match(text, /abx_mcp_sessions_open [1-9]/);
});
