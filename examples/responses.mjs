// The official OpenAI JS SDK against /v1/responses: one turn, the same turn
// streamed, and a follow-up that continues the agent's session.
//
//   ABX_URL=http://127.0.0.1:9000 ABX_TOKEN=... ABX_MODEL=codex node responses.mjs
import OpenAI from 'openai';
import { url, token, model, expect } from './config.mjs';

// The SDK sends `Authorization: Bearer <apiKey>`, which the server accepts as
// its token. Keep another apiKey and add `X-Access-Token` instead if a proxy
// in between wants the Authorization header for itself.
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token || 'unused' });

// One response is one agent turn: it answers when the turn has finished.
const first = await client.responses.create({ model, input: 'Say hello in one short line.' });
console.log(`${first.id} ${first.status}: ${first.output_text}`);
expect(first.status === 'completed' && first.output_text.length > 0, 'a completed first turn');

// previous_response_id resumes the same agent session (the CLI's own resume).
const stream = await client.responses.create({
  model,
  input: 'And now in French.',
  previous_response_id: first.id,
  stream: true,
});
let streamed = '';
let final;
for await (const event of stream) {
  if (event.type === 'response.output_text.delta') {
    process.stdout.write(event.delta);
    streamed += event.delta;
  }
  if (event.type === 'response.completed') final = event.response;
}
console.log();
expect(final?.status === 'completed', 'a response.completed event');
// The event's response is the raw object (output_text is a convenience the
// SDK adds only to non-streamed results): its message parts hold the text.
const text = final.output
  .filter((item) => item.type === 'message')
  .flatMap((item) => item.content.map((part) => part.text))
  .join('');
expect(streamed.length > 0 && text === streamed, 'the deltas add up to the text');

// Errors come in the OpenAI envelope; the SDK raises them as typed errors.
try {
  await client.responses.retrieve('resp_does_not_exist');
  expect(false, 'a 404 for an unknown response');
} catch (err) {
  console.log(`${err.status} ${err.code}: ${err.message}`);
  expect(err instanceof OpenAI.NotFoundError, 'an OpenAI.NotFoundError');
}
