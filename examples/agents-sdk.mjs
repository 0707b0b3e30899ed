// The OpenAI Agents SDK (@openai/agents) with the server as its model: each
// run() is one turn of the hosted agent; previousResponseId continues it.
//
//   ABX_URL=http://127.0.0.1:9000 ABX_TOKEN=... ABX_MODEL=codex node agents-sdk.mjs
import OpenAI from 'openai';
import { Agent, run, setTracingDisabled, OpenAIResponsesModel } from '@openai/agents';
import { url, token, model, expect } from './config.mjs';

// Traces would go to api.openai.com; the server is the only endpoint here.
setTracingDisabled(true);

const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token || 'unused' });
const agent = new Agent({ name: 'sandboxed', model: new OpenAIResponsesModel(client, model) });

const first = await run(agent, 'List the files in your working directory.');
console.log(first.finalOutput);
expect(typeof first.finalOutput === 'string' && first.finalOutput.length > 0, 'a final output');

const second = await run(agent, 'Summarise that in one line.', {
  previousResponseId: first.lastResponseId,
});
console.log(second.finalOutput);
expect(second.lastResponseId !== first.lastResponseId, 'a second response in the same session');
