// The Agents wire (client.beta.agents.sessions.*) against the fake agents:
// the SDK's own helpers (sessions.stream → finalResult, create with stream),
// continuity over three turns, cancel mid-turn, reconnect with
// Last-Event-ID, turns and items lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTS, client, limit, uniquePrompt, fakeReply, sleep } from '../lib/harness.mjs';

const c = client();
const sessions = c.beta.agents.sessions;

test('sessions.stream() on an idle session: three turns with continuity', { timeout: 120_000 }, async () => {
  const s = await sessions.create({ agent_id: AGENTS.codex, environment: { type: 'none' } }, limit());
  assert.match(s.id, /^agsess_/);
  assert.equal(s.object, 'agent.session');
  assert.equal(s.status, 'idle');
  assert.deepEqual(s.required_actions, []);
  for (let n = 1; n <= 3; n++) {
    const prompt = uniquePrompt(`session turn ${n}`);
    const result = await sessions.stream(s.id, { input: prompt }, limit(60_000)).finalResult();
    assert.equal(result.output_text, fakeReply(prompt, n));
    assert.equal(result.turn.status, 'completed');
    assert.equal(result.session_id, s.id);
  }
  const again = await sessions.retrieve(s.id, limit());
  assert.equal(again.status, 'idle');
  const turns = await sessions.turns.list(s.id, {}, limit());
  assert.equal(turns.data.length, 3);
  for (const t of turns.data) {
    assert.equal(t.subagent_id, null);
    assert.equal(t.status, 'completed');
  }
  const items = await sessions.items.list(s.id, { order: 'asc' }, limit());
  const users = items.data.filter((i) => i.type === 'message' && i.role === 'user');
  const answers = items.data.filter((i) => i.type === 'message' && i.role === 'assistant');
  assert.equal(users.length, 3);
  assert.ok(answers.length >= 3);
  for (const i of items.data) assert.ok(i.id && i.turn_id, `item without id/turn_id: ${JSON.stringify(i)}`);
  const turnItems = await sessions.turns.items.list(turns.data[0].id, { session_id: s.id }, limit());
  assert.ok(turnItems.data.length >= 2);
  const first = await sessions.turns.retrieve(turns.data[0].id, { session_id: s.id }, limit());
  assert.deepEqual(first, turns.data[0]);
});

test('create with stream: true starts with agent.session.created and the result collects', { timeout: 120_000 }, async () => {
  const prompt = uniquePrompt('create stream');
  const stream = await sessions.create(
    { agent_id: AGENTS.codex, environment: { type: 'none' }, input: prompt, stream: true }, limit(60_000));
  const result = await stream.finalResult();
  assert.equal(result.output_text, fakeReply(prompt, 1));
});

test('raw events: ids are unique, the turn ends before idle, user message is only added', { timeout: 120_000 }, async () => {
  const s = await sessions.create({ agent_id: AGENTS.codex, environment: { type: 'none' } }, limit());
  const events = await sessions.events.stream(s.id, limit(60_000));
  const prompt = uniquePrompt('raw');
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text: prompt }] }] }],
  }, limit());
  const seen = [];
  for await (const e of events) {
    seen.push(e);
    if (e.type === 'agent.session.idle') break;
  }
  const ids = seen.map((e) => e.event_id);
  assert.equal(new Set(ids).size, ids.length, 'event ids are unique');
  const types = seen.map((e) => e.type);
  assert.ok(types.indexOf('agent.session.turn.created') < types.indexOf('agent.session.turn.completed'));
  assert.ok(types.indexOf('agent.session.turn.completed') < types.lastIndexOf('agent.session.idle'));
  const done = seen.filter((e) => e.type === 'agent.session.turn.item.done');
  assert.ok(done.every((e) => e.item.role !== 'user'), 'never item.done for the user message');
  const finalMessage = done.filter((e) => e.item.type === 'message').at(-1);
  assert.equal(finalMessage.item.content[0].text, fakeReply(prompt, 1));
});

test('cancel mid-turn: turn.cancelled, then idle', { timeout: 120_000 }, async () => {
  const s = await sessions.create({ agent_id: AGENTS.slow, environment: { type: 'none' } }, limit());
  const events = await sessions.events.stream(s.id, limit(60_000));
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text: uniquePrompt('cancel') }] }] }],
  }, limit());
  const seen = [];
  let cancelled = false;
  for await (const e of events) {
    seen.push(e.type);
    if (e.type === 'agent.session.turn.in_progress' && !cancelled) {
      cancelled = true;
      await sleep(200);
      await sessions.events.create(s.id, { events: [{ type: 'agent.session.input.cancel' }] }, limit());
    }
    if (e.type === 'agent.session.idle' && cancelled) break;
  }
  assert.ok(seen.includes('agent.session.turn.cancelled'), seen.join(','));
  assert.ok(seen.indexOf('agent.session.turn.cancelled') < seen.lastIndexOf('agent.session.idle'));
  const after = await sessions.retrieve(s.id, limit());
  assert.equal(after.status, 'idle');
});

// Reads events from @p stream until the first agent.session.idle that follows
// a turn's end (the live tail itself never closes).
async function untilIdleAfterTurn(stream, seen) {
  let ended = false;
  for await (const e of stream) {
    seen.push(e);
    if (/^agent\.session\.turn\.(completed|failed|cancelled)$/.test(e.type)) ended = true;
    if (e.type === 'agent.session.idle' && ended) break;
  }
}

test('reconnect with Last-Event-ID: exactly the missed events, no duplicates, no gaps', { timeout: 120_000 }, async () => {
  const s = await sessions.create({ agent_id: AGENTS.slow, environment: { type: 'none' } }, limit());
  const first = await sessions.events.stream(s.id, limit(60_000));
  await sessions.events.create(s.id, {
    events: [{ type: 'agent.session.input.message', input: uniquePrompt('reconnect') }],
  }, limit());
  // Drop the connection mid-turn, after the turn is under way.
  const before = [];
  for await (const e of first) {
    before.push(e);
    if (e.type === 'agent.session.turn.item.added' && e.item.role !== 'user') break;
  }
  const lastSeen = before.at(-1).event_id;
  const after = [];
  await untilIdleAfterTurn(
    await sessions.events.stream(s.id, { ...limit(60_000), headers: { 'Last-Event-ID': lastSeen } }), after);
  // The whole history, replayed from the start, is the reference.
  const all = [];
  await untilIdleAfterTurn(
    await sessions.events.stream(s.id, { ...limit(60_000), headers: { 'Last-Event-ID': '0' } }), all);
  // The first live tail began at the session's current position: only the
  // agent.session.created of the create came before it.
  const start = all.findIndex((e) => e.event_id === before[0].event_id);
  assert.deepEqual(all.slice(0, start).map((e) => e.type), ['agent.session.created']);
  const joined = [...before, ...after].map((e) => e.event_id);
  assert.deepEqual(joined, all.slice(start).map((e) => e.event_id));
  assert.equal(new Set(joined).size, joined.length, 'no event twice');
  assert.equal(after.at(-1).type, 'agent.session.idle');
  assert.ok(after.some((e) => e.type === 'agent.session.turn.completed'), 'the turn went on while disconnected');
});

test('list, update metadata, delete', { timeout: 60_000 }, async () => {
  const a = await sessions.create({ agent_id: AGENTS.codex, environment: { type: 'none' }, metadata: { k: 'v' } }, limit());
  const updated = await sessions.update(a.id, { metadata: { k: 'w' } }, limit());
  assert.equal(updated.metadata.k, 'w');
  const page = await sessions.list({ limit: 100 }, limit());
  assert.ok(page.data.some((x) => x.id === a.id));
  const gone = await sessions.delete(a.id, limit());
  assert.equal(gone.deleted, true);
  await assert.rejects(sessions.retrieve(a.id, limit()), (e) => e.status === 404);
});
