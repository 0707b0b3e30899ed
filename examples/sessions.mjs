// The Agents wire (client.beta.agents.sessions): a session that lives across
// turns, its event stream, and its items afterwards.
//
//   ABX_URL=http://127.0.0.1:9000 ABX_TOKEN=... ABX_MODEL=codex node sessions.mjs
import OpenAI from 'openai';
import { url, token, model, expect } from './config.mjs';

const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token || 'unused' });
const sessions = client.beta.agents.sessions;

// agent_id names a definition or a runtime; environment is always "none"
// (the agent works in the server's own sandbox).
const session = await sessions.create({ agent_id: model, environment: { type: 'none' } });
console.log(`session ${session.id} (${session.status})`);

// stream() sends the input and follows the session's events to the end of
// that turn; finalResult() collects them.
const result = await sessions
  .stream(session.id, { input: 'Write a haiku about sandboxes.' })
  .finalResult();
console.log(`${result.turn.status}: ${result.output_text}`);
expect(result.turn.status === 'completed' && result.output_text.length > 0, 'a completed turn');

// Everything the turn produced stays on the session: turns and items page
// with cursors (`after`, `limit`, `order`).
const turns = await sessions.turns.list(session.id, {});
const items = await sessions.items.list(session.id, { order: 'asc' });
for (const item of items.data) console.log(`${item.type}${item.role ? ` (${item.role})` : ''}`);
expect(turns.data.length === 1, 'one turn');
expect(items.data.some((item) => item.type === 'message'), 'a message item');

await sessions.delete(session.id);
