// Shared helpers for the oracle cases: the official `openai` client pointed at
// the server that run.sh started, with every response recorded to disk so
// run.sh can scan all bytes the SDK received for the secret canary.
//
// Environment (set by run.sh):
//   ORACLE_BASE_URL  http://127.0.0.1:PORT/v1
//   ORACLE_TOKEN     the server token (ABX_SERVER_TOKEN)
//   ORACLE_WIRE_DIR  where every response (status line, headers, body) is written
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { makeRecordingFetch } from '../../support/recording_fetch.mjs';

export { OpenAI };
export const BASE_URL = process.env.ORACLE_BASE_URL;
export const TOKEN = process.env.ORACLE_TOKEN;
export const WIRE_DIR = process.env.ORACLE_WIRE_DIR;
if (!BASE_URL || !TOKEN) throw new Error('ORACLE_BASE_URL and ORACLE_TOKEN must be set (run the cases through run.sh)');

// Agent names configured in agents.yaml (ABX_AGENTS_CONFIG).
export const AGENTS = {
  codex: 'fake-codex', slow: 'fake-slow', claude: 'fake-claude', capped: 'fake-capped', burn: 'fake-burn',
};

// Every response the SDK receives, recorded for the canary scan and the wire check.
export const recordingFetch = makeRecordingFetch(WIRE_DIR);

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

// A server of the case's own, for what the shared one cannot show (a
// restart): the binary, arguments and public environment run.sh started the
// shared one with (ORACLE_SERVER_*), the same token and canary, its state
// dir and log under ORACLE_CASES_DIR/<name> (the canary scan covers them),
// plus `env`. Two servers started with the same name share the state dir.
// Returns { baseURL, client(options), stop() }; stop() waits for the exit.
let serverSeq = 0;
const ownServers = new Set();
process.on('exit', () => { for (const child of ownServers) child.kill('SIGKILL'); });

export async function startServer(name, env = {}) {
  const { spawn } = await import('node:child_process');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const lines = (text) => (text ?? '').split('\n').filter((l) => l.length > 0);
  const dir = path.join(process.env.ORACLE_CASES_DIR, name);
  fs.mkdirSync(dir, { recursive: true });
  const serverEnv = {};
  for (const line of lines(process.env.ORACLE_SERVER_ENV)) {
    const eq = line.indexOf('=');
    serverEnv[line.slice(0, eq)] = line.slice(eq + 1);
  }
  Object.assign(serverEnv, {
    ABX_SERVER_TOKEN: TOKEN, ORACLE_CANARY: process.env.ORACLE_CANARY_VALUE,
    ABX_AGENTS_STATE_DIR: path.join(dir, 'state'), ...env,
  });
  const log = fs.openSync(path.join(dir, `server-${++serverSeq}.log`), 'w', 0o600);
  const child = spawn(process.env.ORACLE_SERVER_BIN, lines(process.env.ORACLE_SERVER_ARGS),
    { env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  ownServers.add(child);
  const exited = new Promise((resolve) => child.on('close', (code) => { ownServers.delete(child); fs.closeSync(log); resolve(code); }));
  const port = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server '${name}' did not listen in 30 s:\n${seen}`)), 30_000);
    const take = (chunk) => {
      fs.writeSync(log, chunk);
      seen += chunk.toString();
      const m = /^listening on 127\.0\.0\.1:(\d+)/m.exec(seen);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    exited.then((code) => { clearTimeout(timer); reject(new Error(`server '${name}' exited (${code}) before listening:\n${seen}`)); });
  });
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    baseURL,
    client: (o = {}) => client({ baseURL, ...o }),
    stop: async () => { child.kill('SIGTERM'); return exited; },
  };
}
