// A restrictive policy (restrictive.yaml: process and terminal off, a reader
// identity with files:read and system:read only): each caller's document
// lists exactly what /capabilities offers that caller, and validates; every
// answer received matches the admin's document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertParity, checkRecordedAnswers, cliDocument, documentFor, lintErrors, validate, withoutServers,
} from '../lib/harness.mjs';

const READER = process.env.OPENAPI_READER_TOKEN;
const admin = await documentFor();
const reader = await documentFor(READER);
const groupsOf = (doc) => new Set(Object.values(doc.paths).flatMap((item) =>
  Object.values(item).map((op) => op['x-group'])));

test('the disabled groups are left out', async () => {
  await validate(admin);
  assert.deepEqual(await lintErrors(admin), []);
  await assertParity(admin);
  const groups = groupsOf(admin);
  assert.ok(!groups.has('process') && !groups.has('terminal'), [...groups].join(','));
  assert.ok(groups.has('file_ops') && groups.has('agents'));
});

test("the reader's document has only what the reader may call", async () => {
  await validate(reader);
  const { ops } = await assertParity(reader, READER);
  assert.ok(ops.has('download') && ops.has('system_info') && ops.has('openapi'));
  for (const id of ['upload', 'files_delete', 'env_set', 'shell']) assert.ok(!ops.has(id), id);
  assert.ok(ops.size < Object.keys(admin.paths).length);
});

test('the openapi command: the same document for the same scopes', () => {
  assert.deepEqual(withoutServers(cliDocument()), withoutServers(admin));
  assert.deepEqual(withoutServers(cliDocument(['--scopes', 'files:read,system:read'])),
    withoutServers(reader));
});

test("every answer received matches the admin's document (closed schemas)", async () => {
  const seen = await checkRecordedAnswers(admin);
  assert.ok(seen.has('openapi') && seen.has('capabilities'), [...seen].join(','));
});
