// Errors reach the caller as the SDK's typed exceptions (OpenAI error envelope).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, OpenAI, client, limit, uniquePrompt, expectApiError } from '../lib/harness.mjs';

const c = client();
const T = { timeout: 60_000 };

const envelope = (err) => {
  assert.equal(typeof err.error?.message, 'string', `error.message in ${JSON.stringify(err.error)}`);
  assert.ok(err.error.message.length > 0);
  for (const k of ['type', 'param', 'code']) assert.ok(k in err.error, `envelope lacks "${k}": ${JSON.stringify(err.error)}`);
};

test('unknown model -> NotFoundError (404, model_not_found)', T, async () => {
  const err = await expectApiError(
    c.responses.create({ model: 'no-such-agent-oracle', input: uniquePrompt('unknown-model') }, limit()),
    OpenAI.NotFoundError, { status: 404, code: 'model_not_found' });
  envelope(err);
});

test('a function tool -> BadRequestError (400, unsupported_parameter)', T, async () => {
  const err = await expectApiError(
    c.responses.create({
      model: AGENTS.codex,
      input: uniquePrompt('function-tool'),
      tools: [{ type: 'function', name: 'lookup', description: 'Look something up',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, strict: true }],
    }, limit()),
    OpenAI.BadRequestError, { status: 400, code: 'unsupported_parameter' });
  envelope(err);
  if (err.param != null) assert.match(err.param, /^tools/, `param names the tools: ${err.param}`);
});

test('wrong token -> AuthenticationError (401)', T, async () => {
  const bad = client({ apiKey: 'oracle-wrong-token' });
  const e1 = await expectApiError(bad.models.list(limit()), OpenAI.AuthenticationError, { status: 401 });
  envelope(e1);
  const e2 = await expectApiError(
    bad.responses.create({ model: AGENTS.codex, input: uniquePrompt('wrong-token') }, limit()),
    OpenAI.AuthenticationError, { status: 401 });
  envelope(e2);
});

test('Agents API parts the runtimes lack -> BadRequestError (400, unsupported_endpoint)', T, async () => {
  const beta = c.beta.agents;
  for (const [what, call] of [
    ['environments.list', () => beta.environments.list({}, limit())],
    ['environments.retrieve', () => beta.environments.retrieve('env_oracle', limit())],
    ['sessions.artifacts.list', () => beta.sessions.artifacts.list('agsess_oracle', {}, limit())],
    ['sessions.traces.list', () => beta.sessions.traces.list('agsess_oracle', {}, limit())],
  ]) {
    const err = await expectApiError(call(), OpenAI.BadRequestError, { status: 400, code: 'unsupported_endpoint' });
    envelope(err);
    assert.ok(err.message.length > 0, what);
  }
});
