// Shared helpers of the openapi cases: the server run.sh started, its
// document, the validators, the parity with GET /capabilities, and the
// check of every answer received (recorded as the oracle records its wire,
// checked by wire_check.mjs's closed schemas).
//
// Environment (set by run.sh): OPENAPI_BASE_URL, OPENAPI_TOKEN,
// OPENAPI_SERVER (the binary), OPENAPI_CLI_ARGS (the configuration flags,
// one a line), OPENAPI_WORK_DIR.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { makeRecordingFetch } from '../../support/recording_fetch.mjs';
import { checkWire } from '../wire_check.mjs';

export const BASE_URL = process.env.OPENAPI_BASE_URL;
export const TOKEN = process.env.OPENAPI_TOKEN;
export const WORK_DIR = process.env.OPENAPI_WORK_DIR;
if (!BASE_URL || !TOKEN || !WORK_DIR) throw new Error('run the cases through run.sh');
/** Where every answer a case receives is recorded, for checkRecordedAnswers. */
export const WIRE_DIR = path.join(WORK_DIR, 'wire');
export const recordedFetch = makeRecordingFetch(WIRE_DIR);

/** A call to a route as @p token, recorded; resolves to {status, type,
 *  body} (parsed JSON, else the text: an SSE stream is read to its end). */
export async function call(route, { method = 'GET', token = TOKEN, body, timeout = 30_000, headers: extra = {} } = {}) {
  const headers = { 'X-Access-Token': token, ...extra };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await recordedFetch(BASE_URL + route, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeout),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status, type, headers: res.headers,
    body: text && type.includes('json') ? JSON.parse(text) : text || null,
  };
}

/** Checks every answer recorded so far against @p doc (wire_check.mjs: a
 *  listed status and media type, SSE event names, and closed schemas, so a
 *  member the fragment does not describe fails); returns the operationIds
 *  that answered. */
export async function checkRecordedAnswers(doc) {
  const { default: Ajv2020 } = await import('ajv/dist/2020.js');
  const errors = [];
  const seen = checkWire(doc, WIRE_DIR, Ajv2020, errors);
  assert.equal(errors.length, 0, `answers that do not match the document:\n${errors.join('\n')}`);
  return seen;
}

export async function documentFor(token = TOKEN) {
  const { status, body } = await call('/openapi.json', { token });
  assert.equal(status, 200);
  return body;
}

/** swagger-parser's validate(): throws on any schema or reference error. */
export async function validate(doc) {
  await SwaggerParser.validate(structuredClone(doc));
}

/** Redocly's recommended ruleset; returns the problems of severity error. */
export async function lintErrors(doc) {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(doc), absoluteRef: path.join(WORK_DIR, 'openapi.json'), config,
  });
  return problems.filter((p) => p.severity === 'error')
    .map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
}

/** operationId -> {method, path, group} of every operation of @p doc. */
export function operations(doc) {
  const out = new Map();
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      assert.ok(!out.has(op.operationId), `operationId ${op.operationId} appears twice`);
      out.set(op.operationId, { method: method.toUpperCase(), path: route, group: op['x-group'] });
    }
  }
  return out;
}

/** Every endpoint /capabilities shows enabled and allowed has exactly one
 *  operation (same method and path) and the document has nothing else. */
export async function assertParity(doc, token = TOKEN) {
  const { body: caps } = await call('/capabilities', { token });
  const offered = Object.entries(caps.endpoints).filter(([, e]) => e.enabled && e.allowed);
  const ops = operations(doc);
  for (const [id, e] of offered) {
    assert.ok(ops.has(id), `endpoint ${id} (${e.method} ${e.path}) has no operation`);
    assert.deepEqual(ops.get(id), { method: e.method, path: e.path, group: e.group }, id);
  }
  const ids = new Set(offered.map(([id]) => id));
  const extra = [...ops.keys()].filter((id) => !ids.has(id));
  assert.deepEqual(extra, [], 'operations of endpoints /capabilities does not offer');
  return { caps, ops };
}

/** The `openapi` command's document for the same configuration. */
export function cliDocument(extraArgs = [], env = {}) {
  const args = ['openapi', ...process.env.OPENAPI_CLI_ARGS.split('\n').filter(Boolean), ...extraArgs];
  const run = spawnSync(process.env.OPENAPI_SERVER, args, {
    encoding: 'utf8', maxBuffer: 64 << 20, timeout: 60_000,
    // Its own agents state: the check must not share the running server's.
    env: { ...process.env, ABX_AGENTS_STATE_DIR: path.join(WORK_DIR, 'cli-agents'), ...env },
  });
  assert.equal(run.status, 0, `openapi exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** @p doc without its `servers` (the only part that depends on the request). */
export const withoutServers = ({ servers, ...rest }) => rest;
