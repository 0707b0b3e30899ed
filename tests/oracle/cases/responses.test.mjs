// /v1/responses through the official openai@7.55.0 client: non-streaming
// create, the raw SSE stream, the responses.stream() helper, continuity via
// previous_response_id, retrieve, inputItems.list and delete.
// The fake agent answers `turn <n>: <last line of the prompt>`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGENTS, client, limit, collect, uniquePrompt, fakeReply, messageText, assertUsage,
} from '../lib/harness.mjs';

const c = client();
const T = { timeout: 90_000 };
let created; // the non-streaming response, reused by retrieve and inputItems

test('responses.create (non-streaming) completes with the fake reply and numeric usage', T, async () => {
  const prompt = uniquePrompt('create');
  const r = await c.responses.create({ model: AGENTS.codex, input: prompt }, limit(60_000));
  assert.equal(typeof r, 'object', `expected a parsed JSON object (Content-Type application/json), got ${typeof r}`);
  assert.equal(r.object, 'response');
  assert.match(r.id, /^resp_/);
  assert.equal(r.status, 'completed', `status ${r.status}, error ${JSON.stringify(r.error)}`);
  assert.equal(r.model, AGENTS.codex);
  assert.ok(Array.isArray(r.output) && r.output.length > 0, 'output is a non-empty array');
  for (const item of r.output) assert.ok(typeof item.id === 'string' && item.id.length > 0, `item without id: ${JSON.stringify(item)}`);
  assert.equal(r.output_text, fakeReply(prompt, 1));
  assert.equal(messageText(r), fakeReply(prompt, 1));
  assertUsage(r.usage);
  created = { response: r, prompt };
});

test('responses.create (stream: true) emits a well-formed event sequence', T, async () => {
  const prompt = uniquePrompt('raw-stream');
  const stream = await c.responses.create({ model: AGENTS.codex, input: prompt, stream: true }, limit(60_000));
  const events = await collect(stream); // must end on its own: the server closes after the terminal event
  assert.ok(events.length >= 3, `only ${events.length} events`);
  const types = events.map((e) => e.type);

  assert.equal(types[0], 'response.created', `first event: ${types[0]}`);
  assert.equal(types.at(-1), 'response.completed', `last event: ${types.at(-1)} (all: ${types.join(', ')})`);
  assert.equal(types.filter((t) => t === 'response.completed').length, 1, 'exactly one response.completed');
  events.forEach((e, i) => assert.equal(e.sequence_number, i, `sequence_number of event ${i} (${e.type})`));

  // One response id everywhere.
  const id = events[0].response.id;
  assert.match(id, /^resp_/);
  for (const e of events.filter((e) => e.type.startsWith('response.') && e.response))
    assert.equal(e.response.id, id, `${e.type} carries response id ${e.response.id}`);

  // output_item.added/done pairs: contiguous output_index, same id and type,
  // done after added, item-scoped events name the item at their output_index.
  const items = [];
  const done = new Set();
  for (const e of events) {
    if (e.type === 'response.output_item.added') {
      assert.equal(e.output_index, items.length, 'output_index is contiguous from 0');
      assert.ok(e.item?.id, `added item has an id: ${JSON.stringify(e.item)}`);
      assert.ok(!items.some((i) => i.id === e.item.id), `duplicate item id ${e.item.id}`);
      items.push(e.item);
    } else if (e.type === 'response.output_item.done') {
      const added = items[e.output_index];
      assert.ok(added, `output_item.done for output_index ${e.output_index} before added`);
      assert.ok(!done.has(e.output_index), `second output_item.done for ${e.output_index}`);
      assert.equal(e.item.id, added.id);
      assert.equal(e.item.type, added.type);
      done.add(e.output_index);
    } else if ('item_id' in e) {
      assert.equal(e.item_id, items[e.output_index]?.id, `${e.type}: item_id vs output_index ${e.output_index}`);
      assert.ok(!done.has(e.output_index), `${e.type} after output_item.done`);
    }
  }
  assert.ok(items.length > 0, 'at least one output item');
  assert.equal(done.size, items.length, 'every output_item.added has an output_item.done');

  const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  assert.equal(deltas, fakeReply(prompt, 1));
  const final = events.at(-1).response;
  assert.equal(final.status, 'completed');
  assert.equal(messageText(final), fakeReply(prompt, 1));
  assert.deepEqual(final.output.map((i) => i.id), items.map((i) => i.id), 'completed output lists every item');
  assertUsage(final.usage);
});

test('responses.stream() helper: finalResponse() and output_text', T, async () => {
  const prompt = uniquePrompt('helper');
  const s = c.responses.stream({ model: AGENTS.codex, input: prompt }, limit(60_000));
  let text = '';
  s.on('response.output_text.delta', (e) => { text += e.delta; });
  const fin = await s.finalResponse();
  assert.equal(fin.status, 'completed');
  assert.match(fin.id, /^resp_/);
  assert.equal(fin.output_text, fakeReply(prompt, 1));
  assert.equal(text, fin.output_text, 'the deltas add up to output_text');
});

test('previous_response_id continues one session over three turns', T, async () => {
  const prompts = [uniquePrompt('turn-a'), uniquePrompt('turn-b'), uniquePrompt('turn-c')];
  let previous = null;
  for (const [i, prompt] of prompts.entries()) {
    const body = { model: AGENTS.codex, input: prompt };
    if (previous) body.previous_response_id = previous.id;
    const r = await c.responses.create(body, limit(60_000));
    assert.equal(r.status, 'completed', `turn ${i + 1}: status ${r.status}, error ${JSON.stringify(r.error)}`);
    assert.equal(r.output_text, fakeReply(prompt, i + 1), `turn ${i + 1}`);
    if (previous) {
      assert.notEqual(r.id, previous.id);
      assert.equal(r.previous_response_id ?? previous.id, previous.id);
    }
    previous = r;
  }
});

test('responses.retrieve returns the stored response', T, async () => {
  assert.ok(created, 'needs the non-streaming create above');
  const { response: r, prompt } = created;
  const got = await c.responses.retrieve(r.id, {}, limit());
  assert.equal(got.object, 'response');
  assert.equal(got.id, r.id);
  assert.equal(got.status, 'completed');
  assert.equal(got.model, r.model);
  assert.deepEqual(got.output, r.output);
  assert.equal(got.output_text, fakeReply(prompt, 1));
  assertUsage(got.usage);
});

test('responses.inputItems.list returns the user message with an id', T, async () => {
  assert.ok(created, 'needs the non-streaming create above');
  const { response: r, prompt } = created;
  const items = [];
  for await (const item of c.responses.inputItems.list(r.id, {}, limit())) items.push(item);
  assert.equal(items.length, 1, `input items: ${JSON.stringify(items)}`);
  const [m] = items;
  assert.ok(typeof m.id === 'string' && m.id.length > 0, `input item without id: ${JSON.stringify(m)}`);
  assert.equal(m.type, 'message');
  assert.equal(m.role, 'user');
  const text = (m.content ?? []).filter((p) => p.type === 'input_text').map((p) => p.text).join('');
  assert.equal(text, prompt);
});

test('responses.delete removes the stored response', T, async () => {
  assert.ok(created, 'needs the non-streaming create above');
  const { response: r } = created;
  await c.responses.delete(r.id, limit());
  await assert.rejects(c.responses.retrieve(r.id, {}, limit()), (e) => e.status === 404);
});
