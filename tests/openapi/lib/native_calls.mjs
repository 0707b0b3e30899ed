// Calls every native operation (every group but agents, whose /v1 routes the
// oracle drives) at least once, successes and errors, through the recording
// `call`, so checkRecordedAnswers checks each answer against the document.
// The assertions here only make sure a call did what it was meant to (the
// answer's shape is the wire check's business).
import assert from 'node:assert/strict';
import { call } from './harness.mjs';

const ok = async (route, options) => {
  const r = await call(route, options);
  assert.equal(r.status, 200, `${options?.method ?? 'GET'} ${route}: ${JSON.stringify(r.body)?.slice(0, 300)}`);
  return r.body;
};
const b64 = (text) => Buffer.from(text).toString('base64');

export async function callCore() {
  await ok('/health');
  await ok('/ready');
  await ok('/capabilities');
  await ok('/capabilities/check', { method: 'POST', body: { endpoint: 'shell', path: 'x' } });
  await call('/capabilities/check', { method: 'POST', body: { endpoint: 'nope' } });
  const metrics = await ok('/metrics');
  assert.match(metrics, /^# HELP abx_/m);
}

/** The inspector page and its files: no token needed. */
export async function callInspector() {
  const page = await ok('/ui', { token: '' });
  assert.match(page, /<html/i);
  await ok('/ui/inspector.css', { token: '' });
  await ok('/ui/api.js', { token: '' });
  await call('/ui/no-such-file.js', { token: '' });
}

/** The MCP transport: a session's life, its JSON-RPC answers and refusals. */
export async function callMcp() {
  const accept = { Accept: 'application/json, text/event-stream' };
  const init = await call('/mcp', {
    method: 'POST', headers: accept,
    body: { jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi', version: '1' } } },
  });
  assert.equal(init.status, 200);
  const session = { ...accept, 'Mcp-Session-Id': init.headers.get('mcp-session-id') };
  const notified = await call('/mcp', { method: 'POST', headers: session,
    body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  assert.equal(notified.status, 202);
  const tools = await ok('/mcp', { method: 'POST', headers: session, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  assert.ok(tools.result.tools.length > 0);
  await call('/mcp', { method: 'POST', headers: accept, body: { jsonrpc: '2.0', id: 3, method: 'ping' } });
  await call('/mcp', { method: 'GET' });
  await ok('/mcp', { method: 'DELETE', headers: session });
  await call('/mcp', { method: 'DELETE', headers: session });
}

/** Last, so the audit ring holds the refusals of the calls before it (a wrong
 *  token among them). */
export async function callAudit() {
  await call('/system/info', { token: 'not-the-token' });
  const { records } = await ok('/audit/recent?limit=5');
  assert.ok(records.length > 0, 'no audit record');
  await call('/audit/recent?limit=0');
}

export async function callSystem() {
  await ok('/system/info');
  await ok('/system/metrics');
  await ok('/ports');
  await ok('/packages?manager=npm', { timeout: 60_000 });
  await call('/packages?manager=apt');
  await ok('/env?filter=PATH,HOME');
  await ok('/env', { method: 'POST', body: { vars: { APP_MODE: 'test' } } });
  await call('/env', { method: 'POST', body: { vars: { LD_PRELOAD: 'x' } } });
}

export async function callFiles() {
  await ok('/upload', { method: 'POST', body: { path: 'conf/a.txt', content_base64: b64('hi') } });
  await call('/upload', { method: 'POST', body: { path: 'conf/a.txt', content_base64: '!' } });
  await ok('/files/upload-stream', { method: 'POST', body: { path: 'conf/big.txt', content_base64: b64('x'.repeat(70_000)) } });
  await ok('/download?path=conf/a.txt');
  await call('/download?path=conf/none');
  await ok('/files/download-stream?path=conf/big.txt');
  await ok('/files/mkdir', { method: 'POST', body: { path: 'conf/sub' } });
  await call('/files/mkdir', { method: 'POST', body: { path: 'conf/a.txt' } });
  await ok('/upload', { method: 'POST', body: { path: 'conf/.hidden', content_base64: b64('h') } });
  await ok('/files/list?path=conf');
  await ok('/files/list?path=conf&hidden=true');
  await ok('/files/stat?path=conf/sub');
  await ok('/files/stat?path=conf/a.txt');
  await ok('/files/stat?path=conf/none');
  await ok('/files/search', { method: 'POST', body: { pattern: '*.txt', path: 'conf' } });
  await ok('/files/archive', { method: 'POST', body: { paths: ['conf'], format: 'zip' } });
  await ok('/files/archive', { method: 'POST', body: { paths: ['conf/a.txt'], format: 'tar.gz' } });
  await call('/files/archive', { method: 'POST', body: { paths: ['conf'], format: 'rar' } });
  await ok('/files/move', { method: 'POST', body: { source: 'conf/a.txt', destination: 'conf/b.txt' } });
  await ok('/files?path=conf', { method: 'DELETE' });
  await call('/files?path=conf', { method: 'DELETE' });
}

async function waitExited(pid) {
  for (let i = 0; i < 100; i++) {
    const { body } = await call(`/process/${pid}`);
    if (body?.state !== 'running') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`process ${pid} did not exit`);
}

export async function callProcess() {
  await ok('/shell', { method: 'POST', body: { command: 'sh -c "echo out; echo err >&2; exit 3"' } });
  await call('/shell', { method: 'POST', body: { command: 'sleep 5', timeout: 0.3 } });
  await call('/shell', { method: 'POST', body: { command: 'no-such-program-here' } });
  const stream = await ok('/shell/stream', { method: 'POST', body: { command: 'sh -c "echo out; echo err >&2; exit 2"' } });
  assert.match(stream, /event: ?exit/, stream);
  await ok('/shell/stream', { method: 'POST', body: { command: 'sleep 5', timeout: 0.3 } });
  await ok('/shell/stream', { method: 'POST', body: { command: 'no-such-program-here' } });
  await call('/shell/stream', { method: 'POST', body: {} });
  const started = await ok('/process/start', { method: 'POST', body: { command: ['cat'] } });
  await ok('/process/list');
  await ok(`/process/${started.pid}`);
  await ok(`/process/${started.pid}/stdin`, { method: 'POST', body: { data: 'x\n', close: true } });
  await ok(`/process/${started.pid}/output?after=0`);
  await waitExited(started.pid);
  await ok(`/process/${started.pid}`);
  await ok(`/process/${started.pid}/output?after=1`);
  await call(`/process/${started.pid}/stdin`, { method: 'POST', body: { data: 'late' } });
  await call(`/process/${started.pid}/signal`, { method: 'POST', body: { signal: 15 } });
  await call('/process/999999999');
  await call('/process/abc');
  const sleeper = await ok('/process/start', { method: 'POST', body: { command: 'sleep 30' } });
  await ok(`/process/${sleeper.pid}/signal`, { method: 'POST', body: { signal: 15 } });
}

export async function callTerminal() {
  const pty = await ok('/pty/sessions', { method: 'POST', body: { cols: 100, rows: 30, shell: 'sh', env: { A: 'b' } } });
  await call('/pty/sessions', { method: 'POST', body: { cols: 0 } });
  await ok('/pty/sessions');
  await ok(`/pty/sessions/${pty.session_id}`);
  await ok(`/pty/sessions/${pty.session_id}/resize`, { method: 'POST', body: { cols: 90, rows: 20 } });
  await ok(`/pty/sessions/${pty.session_id}`, { method: 'DELETE' });
  await call(`/pty/sessions/${pty.session_id}`);
  await call('/pty');  // a plain GET, no WebSocket upgrade: refused
}

export async function callCommands() {
  await ok('/commands');
  await ok('/commands/hello', { method: 'POST', body: { name: 'openapi' } });
  await call('/commands/no-such-command', { method: 'POST', body: {} });
}

export async function callDevTools() {
  await ok('/code/run', { method: 'POST', body: { code: 'echo hi', language: 'bash' } });
  await call('/code/run', { method: 'POST', body: { code: 'x', language: 'cobol' } });
  await call('/code/run', { method: 'POST', body: { code: 'sleep 5', language: 'bash', timeout: 0.3 } });
  await ok('/code/run', { method: 'POST', body: { code: 'import sys; print(1); sys.exit(4)' } });
  // A repository with a commit, a change, a staged file and an untracked one.
  const git = 'git -c user.name=t -c user.email=t@example.invalid';
  await ok('/shell', { method: 'POST', body: { command: ['sh', '-c', `mkdir repo && cd repo && git init -q &&
    echo a > a.txt && git add a.txt && ${git} commit -qm one && echo b >> a.txt &&
    echo s > s.txt && git add s.txt && echo u > u.txt`] } });
  await ok('/git/status?path=repo');
  await ok('/git/diff?path=repo');
  await ok('/git/diff?path=repo&staged=true');
  await call('/git/status?path=conf-none');
}

/** The browser on about:blank with a page written by evaluate. With
 *  @p chromium every call must succeed; without, each route answers its
 *  error, which is checked all the same. */
export async function callBrowser(chromium) {
  const go = chromium ? ok : call;
  await go('/browser/navigate', { method: 'POST', body: { url: 'about:blank' }, timeout: 60_000 });
  const page = `document.body.innerHTML = '<input id="i"><button id="b" onclick="console.log(1)">b</button>'; 1`;
  await go('/browser/evaluate', { method: 'POST', body: { script: page } });
  await go('/browser/type', { method: 'POST', body: { selector: '#i', text: 'typed' } });
  await go('/browser/click', { method: 'POST', body: { selector: '#b' } });
  await go('/browser/content');
  await go('/browser/content?type=text');
  await go('/browser/console');
  await go('/browser/screenshot', { method: 'POST', body: { width: 320, height: 200 } });
  await go('/browser/pdf', { method: 'POST', body: {} });
  await call('/browser/click', { method: 'POST', body: { selector: '#none', timeout: 200 } });
  await call('/browser/evaluate', { method: 'POST', body: { script: 'throw new Error("e")' } });
  await call('/browser/navigate', { method: 'POST', body: { url: 'file:///etc/passwd' } });
}
