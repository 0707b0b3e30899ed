// The whole surface (every opt-in group on): the document validates, matches
// GET /capabilities operation for operation, equals what the `openapi`
// command prints, and a client generated from it drives native routes; every
// native operation is called, and every answer received is checked against
// the document by wire_check.mjs's closed schemas; every plugin's fragment
// passes wire_check.mjs's lint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import {
  BASE_URL, TOKEN, assertParity, checkRecordedAnswers, cliDocument, documentFor, lintErrors,
  operations, recordedFetch, validate, withoutServers,
} from '../lib/harness.mjs';
import {
  callAudit, callBrowser, callCommands, callCore, callDevTools, callFiles, callInspector, callMcp,
  callProcess, callSystem, callTerminal,
} from '../lib/native_calls.mjs';
import { lintFragment } from '../wire_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.dirname(here);
const doc = await documentFor();
// The browser plugin looks for these names on PATH (kChromiumNames).
const onPath = (name) => (process.env.PATH ?? '').split(':').some((d) => d && fs.existsSync(path.join(d, name)));

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
  for (const g of ['agents', 'dev_tools', 'browser', 'mcp']) assert.ok(groups.has(g), `group ${g}`);
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

test('every native operation answers (recorded for the final check)', async () => {
  await callCore();
  await callSystem();
  await callFiles();
  await callProcess();
  await callTerminal();
  await callCommands();
  await callDevTools();
  await callBrowser(onPath('chromium') || onPath('chromium-browser'));
  await callInspector();
  await callMcp();
  await callAudit();
});

test("every plugin's fragment passes wire_check's lint", () => {
  const plugins = path.join(suite, '..', '..', 'plugins');
  const folders = fs.readdirSync(plugins).filter((f) => fs.existsSync(path.join(plugins, f, 'openapi.json')));
  assert.ok(folders.includes('agents') && folders.includes('files'), folders.join(' '));
  for (const folder of folders) {
    // Components are named after the plugin's folder: dev_tools -> DevTools.
    const prefix = folder.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
    const errors = [];
    lintFragment(JSON.parse(fs.readFileSync(path.join(plugins, folder, 'openapi.json'), 'utf8')), doc, prefix, errors);
    assert.deepEqual(errors, [], folder);
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
  const r = await drive(BASE_URL, TOKEN, recordedFetch);
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

// Last, so it sees every answer the tests above received, the typed client's included.
test('every answer received matches the document (closed schemas)', async () => {
  const seen = await checkRecordedAnswers(doc);
  const native = [...operations(doc)].filter(([, o]) => o.group !== 'agents').map(([id]) => id);
  assert.deepEqual(native.filter((id) => !seen.has(id)), [], 'native operations never called');
});
