// The real Claude Code CLI (2.1.328) uses this server as its MCP server:
// a server of the case's own with the mcp group on, the CLI started with
// --mcp-config naming its /mcp (the token expanded from the CLI's env, never
// written into the file), the scripted Messages stub asking for the
// mcp__sandbox__file_write tool; the file is then in the server's base dir,
// written by the files route under the token's identity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, TOKEN } from '../../oracle/lib/harness.mjs';
import { startMessagesStub } from '../lib/messages_stub.mjs';

const CASES = process.env.ORACLE_CASES_DIR;
const REALCLI_BIN = process.env.REALCLI_BIN;
const KEY = 'stub-key-mcp';

function run(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.stderr.on('data', (c) => { out += c; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('claude -p writes a file in the sandbox through /mcp', { timeout: 240_000 }, async (t) => {
  const base = path.join(CASES, 'mcp-base');
  const home = path.join(CASES, 'mcp-home');
  fs.mkdirSync(base, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const server = await startServer('mcp', { ABX_SERVER_ENABLED_GROUPS: 'agents,mcp', ABX_SERVER_BASE_DIR: base });
  const stub = await startMessagesStub({ apiKey: KEY });
  t.after(async () => { await stub.close(); await server.stop(); });
  // One answer through the recording client, so the suite's wire check and
  // canary scan have something to check.
  assert.ok((await server.client().models.list()).data.length > 0);

  const config = path.join(home, 'sandbox-mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { sandbox: {
    type: 'http', url: server.baseURL.replace(/\/v1$/, '/mcp'), headers: { 'X-Access-Token': '${ABX_MCP_TOKEN}' },
  } } }), { mode: 0o600 });
  const { code, out } = await run(path.join(REALCLI_BIN, 'claude'), [
    '-p', 'MCPWRITE: write the file through the sandbox', '--output-format', 'json',
    '--mcp-config', config, '--allowedTools', 'mcp__sandbox__file_write', '--model', 'claude-stub-model',
  ], {
    PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: KEY,
    ABX_MCP_TOKEN: TOKEN, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', CLAUDE_CODE_MAX_RETRIES: '0',
    // The sandbox's tools go in the request itself, not behind ToolSearch,
    // so the stub sees the one it asks for.
    ENABLE_TOOL_SEARCH: 'false',
    HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost',
  });
  assert.equal(code, 0, out);
  const steps = stub.requests.map((r) => r.step);
  const offered = stub.requests.map((r) => (r.body?.tools ?? []).map((x) => x.name).join(','));
  assert.ok(steps.includes('mcp_write'), `stub steps: ${steps}; tools offered: ${offered.join(' | ')}\n${out}`);
  assert.ok(steps.includes('final'), `the tool result came back: ${steps}\n${out}`);
  assert.equal(fs.readFileSync(path.join(base, 'from-claude.txt'), 'utf8'), 'written through /mcp\n');
  assert.ok(!fs.readFileSync(config, 'utf8').includes(TOKEN), 'the token is not in the config file');
});
