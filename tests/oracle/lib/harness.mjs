// Shared helpers for the oracle cases: the official `openai` client pointed at
// the server that run.sh started, with every response recorded to disk so
// run.sh can scan all bytes the SDK received for the secret canary.
//
// Environment (set by run.sh):
//   ORACLE_BASE_URL  http://127.0.0.1:PORT/v1
//   ORACLE_TOKEN     the server token (ABX_SERVER_TOKEN)
//   ORACLE_WIRE_DIR  where every response (status line, headers, body) is written
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

export { OpenAI };
export const BASE_URL = process.env.ORACLE_BASE_URL;
export const TOKEN = process.env.ORACLE_TOKEN;
export const WIRE_DIR = process.env.ORACLE_WIRE_DIR;
if (!BASE_URL || !TOKEN) throw new Error('ORACLE_BASE_URL and ORACLE_TOKEN must be set (run the cases through run.sh)');

// Agent names configured in agents.yaml (ABX_AGENTS_CONFIG).
export const AGENTS = { codex: 'fake-codex', slow: 'fake-slow', claude: 'fake-claude' };

let seq = 0;
const tag = `${process.pid}-${path.basename(process.argv[1] ?? 'node', '.mjs')}`;

// A fetch that tees every response into ORACLE_WIRE_DIR while handing the
// body to the SDK chunk by chunk (SSE keeps streaming: each chunk is written
// synchronously and passed on at once, nothing is buffered).
export async function recordingFetch(input, init) {
  const response = await fetch(input, init);
  if (!WIRE_DIR) return response;
  const method = (init?.method ?? 'GET').toUpperCase();
  const url = typeof input === 'string' ? input : input.url ?? String(input);
  const file = path.join(WIRE_DIR, `${tag}-${String(++seq).padStart(4, '0')}.http`);
  const fd = fs.openSync(file, 'w', 0o600);
  let head = `${method} ${url}\n${response.status} ${response.statusText}\n`;
  for (const [k, v] of response.headers) head += `${k}: ${v}\n`;
  fs.writeSync(fd, head + '\n');
  if (!response.body || [101, 204, 205, 304].includes(response.status)) {
    fs.closeSync(fd);
    return response;
  }
  let closed = false;
  const close = () => { if (!closed) { closed = true; fs.closeSync(fd); } };
  // Pull-through: each chunk is written synchronously and handed on at once,
  // so SSE keeps streaming; a caller that breaks out cancels the upstream too.
  const reader = response.body.getReader();
  const passthrough = new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) { close(); controller.close(); return; }
        fs.writeSync(fd, value);
        controller.enqueue(value);
      } catch (err) { close(); controller.error(err); }
    },
    cancel(reason) { close(); return reader.cancel(reason); },
  });
  const copy = new Response(passthrough, {
    status: response.status, statusText: response.statusText, headers: response.headers,
  });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

export const client = (o = {}) => new OpenAI({
  apiKey: TOKEN, baseURL: BASE_URL, maxRetries: 0, timeout: 60_000, fetch: recordingFetch, ...o,
});

// Request options for every SDK call: a hang becomes an abort naming the call.
export const limit = (ms = 30_000) => ({ signal: AbortSignal.timeout(ms) });

export async function collect(iterable) {
  const out = [];
  for await (const e of iterable) out.push(e);
  return out;
}

// A prompt unique to this test, and the fake agent's deterministic reply to
// it: `turn <n>: <last line of the prompt>` (n counts the turns of one session).
let promptSeq = 0;
export const uniquePrompt = (what) => `oracle ${what} #${++promptSeq} ${Math.random().toString(36).slice(2, 8)}`;
export const fakeReply = (prompt, n = 1) => `turn ${n}: ${prompt.trimEnd().split('\n').at(-1)}`;

// Text of the assistant message items of a Response (independent of the
// SDK's computed output_text).
export function messageText(response) {
  return (response.output ?? [])
    .filter((i) => i.type === 'message')
    .flatMap((i) => i.content ?? [])
    .filter((p) => p.type === 'output_text')
    .map((p) => p.text)
    .join('');
}

export function assertUsage(usage) {
  assert.ok(usage && typeof usage === 'object', `usage missing: ${JSON.stringify(usage)}`);
  for (const k of ['input_tokens', 'output_tokens', 'total_tokens'])
    assert.equal(typeof usage[k], 'number', `usage.${k} is not a number: ${JSON.stringify(usage)}`);
  for (const k of ['input_tokens_details', 'output_tokens_details']) {
    if (usage[k] == null) continue;
    for (const [dk, dv] of Object.entries(usage[k]))
      assert.equal(typeof dv, 'number', `usage.${k}.${dk} must be a plain number (Agents SDK zod), got ${JSON.stringify(dv)}`);
  }
}

// Expect `promise` to reject with an instance of `Class` and the given
// status / code; returns the error for further checks.
export async function expectApiError(promise, Class, { status, code } = {}) {
  let err;
  try {
    const value = await promise;
    assert.fail(`expected ${Class.name}, got a result: ${JSON.stringify(value)?.slice(0, 300)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    err = e;
  }
  assert.ok(err instanceof Class,
    `expected ${Class.name}, got ${err?.constructor?.name}: ${err?.message}`);
  if (status !== undefined) assert.equal(err.status, status, `status of ${err.message}`);
  if (code !== undefined) assert.equal(err.code, code, `code of ${err.message}`);
  return err;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
