// @openai/agents@0.20.0 run() over /v1/responses: two runs in one
// conversation chained with previousResponseId.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, run, setTracingDisabled, OpenAIResponsesModel } from '@openai/agents';
import { AGENTS, client, uniquePrompt, fakeReply } from '../lib/harness.mjs';

setTracingDisabled(true); // and NODE_ENV=test from run.sh: no trace export to api.openai.com

test('run() twice in one conversation via previousResponseId', { timeout: 120_000 }, async () => {
  assert.equal(process.env.NODE_ENV, 'test');
  const agent = new Agent({ name: 'oracle', model: new OpenAIResponsesModel(client(), AGENTS.codex) });

  const p1 = uniquePrompt('agents-1');
  const r1 = await run(agent, p1, { signal: AbortSignal.timeout(60_000) });
  assert.equal(r1.finalOutput, fakeReply(p1, 1));
  assert.match(r1.lastResponseId ?? '', /^resp_/);

  const p2 = uniquePrompt('agents-2');
  const r2 = await run(agent, p2, { previousResponseId: r1.lastResponseId, signal: AbortSignal.timeout(60_000) });
  assert.equal(r2.finalOutput, fakeReply(p2, 2));
  assert.match(r2.lastResponseId ?? '', /^resp_/);
  assert.notEqual(r2.lastResponseId, r1.lastResponseId);
});
