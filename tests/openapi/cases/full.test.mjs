// The whole surface (every opt-in group on): the document validates, matches
// GET /capabilities operation for operation, describes what the routes
// really answer, equals what the `openapi` command prints, and a client
// generated from it drives native routes; every plugin's fragment passes
// wire_check.mjs's lint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import {
  BASE_URL, TOKEN, WORK_DIR, assertParity, call, cliDocument, conformanceChecker, documentFor,
  lintErrors, operations, validate, withoutServers,
} from '../lib/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.dirname(here);
const doc = await documentFor();

test('swagger-parser validates the document', async () => {
  await validate(doc);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.servers[0].url, BASE_URL);
});

test('redocly (recommended rules) finds no error', async () => {
  assert.deepEqual(await lintErrors(doc), []);
});

test('one operation per offered endpoint, and nothing else', async () => {
  const { ops } = await assertParity(doc);
  // The big surface is there: the opt-in groups and core's own route.
  for (const id of ['openapi', 'health', 'upload', 'shell', 'pty_create', 'system_info']) {
    assert.ok(ops.has(id), id);
  }
  const groups = new Set([...ops.values()].map((o) => o.group));
  for (const g of ['agents', 'dev_tools', 'browser']) assert.ok(groups.has(g), `group ${g}`);
});

test('kernel-written parts: security, envelopes, SSE', () => {
  const health = doc.paths['/health'].get;
  assert.deepEqual(health.security, []);
  // The inspector page needs no token; the audit records need audit:read.
  assert.deepEqual(doc.paths['/ui'].get.security, []);
  assert.deepEqual(doc.paths['/ui/{asset}'].get.security, []);
  assert.deepEqual(doc.paths['/audit/recent'].get['x-scopes'], ['audit:read']);
  const upload = doc.paths['/upload'].post;
  assert.deepEqual(upload.security, [{ accessToken: [] }, { bearerAuth: [] }]);
  assert.deepEqual(upload['x-scopes'], ['files:write']);
  assert.equal(upload.responses['409'].content['application/json'].schema.$ref,
    '#/components/schemas/Error');
  const v1 = Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/'));
  assert.ok(v1.length > 0, 'the agents group serves /v1 routes');
  for (const [p, item] of v1) {
    for (const op of Object.values(item)) {
      assert.equal(op.responses.default.content['application/json'].schema.$ref,
        '#/components/schemas/OpenAIError', p);
    }
  }
  const stream = doc.paths['/shell/stream'].post.responses['200'].content['text/event-stream'];
  assert.deepEqual(Object.keys(stream['x-sse-events']).sort(), ['error', 'exit', 'stderr', 'stdout']);
});

test("answers match the document's schemas, errors included", async () => {
  const check = await conformanceChecker(doc);
  const run = async (method, template, route = template, body) =>
    check(method, template, await call(route, { method, body }));
  await run('GET', '/health');
  await run('GET', '/capabilities');
  await run('GET', '/audit/recent', '/audit/recent?limit=5');
  await run('GET', '/audit/recent', '/audit/recent?limit=0');
  await run('POST', '/capabilities/check', '/capabilities/check', { endpoint: 'shell', path: 'x' });
  await run('POST', '/capabilities/check', '/capabilities/check', { endpoint: 'nope' });
  await run('GET', '/system/info');
  await run('GET', '/system/metrics');
  await run('GET', '/ports');
  await run('GET', '/env', '/env?filter=PATH,HOME');
  await run('POST', '/env', '/env', { vars: { APP_MODE: 'test' } });
  await run('POST', '/env', '/env', { vars: { LD_PRELOAD: 'x' } });
  await run('POST', '/upload', '/upload', { path: 'conf/a.txt', content_base64: 'aGk=' });
  await run('GET', '/files/list', '/files/list?path=conf');
  await run('GET', '/files/stat', '/files/stat?path=conf/a.txt');
  await run('GET', '/files/stat', '/files/stat?path=conf/none');
  await run('POST', '/files/search', '/files/search', { pattern: '*.txt', path: 'conf' });
  await run('POST', '/files/archive', '/files/archive', { paths: ['conf'], format: 'zip' });
  await run('GET', '/files/download-stream', '/files/download-stream?path=conf/a.txt');
  await run('POST', '/files/move', '/files/move', { source: 'conf/a.txt', destination: 'conf/b.txt' });
  await run('DELETE', '/files', '/files?path=conf');
  await run('POST', '/shell', '/shell', { command: 'sh -c "echo out; echo err >&2; exit 3"' });
  await run('POST', '/shell', '/shell', { command: 'no-such-program-here' });
  const { body: started } = await call('/process/start', { method: 'POST', body: { command: ['cat'] } });
  await run('GET', '/process/list');
  await run('POST', '/process/{pid}/stdin', `/process/${started.pid}/stdin`, { data: 'x\n', close: true });
  await run('GET', '/process/{pid}/output', `/process/${started.pid}/output?after=0`);
  await run('GET', '/process/{pid}', '/process/abc');
  const { body: pty } = await call('/pty/sessions', { method: 'POST', body: { cols: 100, rows: 30 } });
  await run('GET', '/pty/sessions/{id}', `/pty/sessions/${pty.session_id}`);
  await run('POST', '/pty/sessions/{id}/resize', `/pty/sessions/${pty.session_id}/resize`, { cols: 90, rows: 20 });
  await run('DELETE', '/pty/sessions/{id}', `/pty/sessions/${pty.session_id}`);
  await run('GET', '/pty');
  await run('GET', '/commands');
  await run('POST', '/commands/{name}', '/commands/hello', { name: 'openapi' });
  await run('POST', '/code/run', '/code/run', { code: 'echo hi', language: 'bash' });
});

test("every plugin's fragment passes wire_check's lint", () => {
  const saved = path.join(WORK_DIR, 'lint-openapi.json');
  fs.writeFileSync(saved, JSON.stringify(doc));
  const plugins = path.join(suite, '..', '..', 'plugins');
  const folders = fs.readdirSync(plugins).filter((f) => fs.existsSync(path.join(plugins, f, 'openapi.json')));
  assert.ok(folders.includes('agents') && folders.includes('files'), folders.join(' '));
  for (const folder of folders) {
    // Components are named after the plugin's folder: dev_tools -> DevTools.
    const prefix = folder.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
    const run = spawnSync(process.execPath, [path.join(suite, 'wire_check.mjs'), '--document', saved,
      '--fragment', path.join(plugins, folder, 'openapi.json'), '--prefix', prefix], { encoding: 'utf8' });
    assert.equal(run.status, 0, `${folder}:\n${run.stdout}${run.stderr}`);
  }
});

test('the openapi command prints the same document', () => {
  assert.deepEqual(withoutServers(cliDocument()), withoutServers(doc));
});

test('a generated typed client drives native routes', async (t) => {
  const dir = fs.mkdtempSync(path.join(suite, '.client-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
  for (const f of ['drive.ts', 'tsconfig.json']) fs.copyFileSync(path.join(suite, 'client', f), path.join(dir, f));
  const tsc = spawnSync(process.execPath, [path.join(suite, 'node_modules/typescript/bin/tsc'), '-p', dir],
    { encoding: 'utf8', timeout: 120_000 });
  assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
  const { drive } = await import(pathToFileURL(path.join(dir, 'drive.js')).href);
  const r = await drive(BASE_URL, TOKEN);
  assert.equal(r.written, 12);
  assert.equal(r.readBack, 'hello, typed');
  assert.deepEqual(r.listed, ['hello.txt']);
  assert.equal(r.shellOut, 'typed shell\n');
  assert.ok(r.pid > 0);
  assert.equal(r.processState, 'running');
  assert.ok(r.cpuCount >= 1);
  assert.equal(r.offered, operations(doc).size);
  assert.equal(r.missingStatus, 404);
});
