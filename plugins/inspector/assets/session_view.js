// One agent session as its event stream tells it: its status, and its turns
// with their items, each item's text growing delta by delta
// (docs/agents.md, "The Agents wire"). Every text is set as text.

import { el } from './dom.js';

const MAX_TURNS = 100;

const DELTAS = new Set([
  'agent.session.turn.output_text.delta',
  'agent.session.turn.reasoning_summary_text.delta',
  'agent.output.command_execution_output.delta',
]);

// The label of an item: who or what it is.
function labelOf(item) {
  if (item.type === 'message') return item.role === 'user' ? 'user' : 'assistant';
  if (item.type === 'reasoning') return 'reasoning';
  if (item.type === 'command_execution') return `$ ${item.command ?? ''}`;
  return `tool ${item.server_label ?? ''}/${item.name ?? ''}`;
}

// The whole text of an item as its done event carries it, or null.
function finalText(item) {
  const first = (parts) => (Array.isArray(parts) && parts.length ? parts[0].text : null);
  if (item.type === 'message') return first(item.content);
  if (item.type === 'reasoning') return first(item.summary);
  if (item.type === 'mcp_call') return item.error ?? item.output ?? null;
  return item.output ?? null;
}

export class SessionView {
  constructor(root, sessionId) {
    this.turns = new Map();
    this.items = new Map();
    this.status = el('span', { cls: 'badge', text: 'connecting' });
    this.notes = el('p', { cls: 'note' });
    this.list = el('ol', { cls: 'turns' });
    root.replaceChildren(
      el('h3', {}, [el('span', { text: `Session ${sessionId} ` }), this.status]),
      this.notes,
      this.list,
    );
    this.root = root;
  }

  note(text, kind = '') {
    this.notes.textContent = text;
    this.notes.className = kind ? `note ${kind}` : 'note';
  }

  /** Applies one event ({type, ...} as the stream sent it). */
  apply(data) {
    const type = data.type ?? '';
    const follow = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 40;
    if (type.startsWith('agent.session.turn.item.')) this.item(data, type.endsWith('.done'));
    else if (DELTAS.has(type)) this.delta(data);
    else if (type.startsWith('agent.session.turn.') && data.turn) this.turn(data.turn);
    else if (data.session) this.session(data.session);
    else if (type === 'error') this.note(`stream: ${data.error?.message ?? data.message ?? 'error'}`, 'error');
    if (follow) this.root.scrollTop = this.root.scrollHeight;
  }

  session(session) {
    this.status.textContent = session.status ?? '';
    this.status.className = `badge ${session.status ?? ''}`;
    if (session.error) this.note(String(session.error), 'error');
  }

  turnNode(turnId) {
    let turn = this.turns.get(turnId);
    if (turn) return turn;
    const status = el('span', { cls: 'badge' });
    const detail = el('span', { cls: 'detail' });
    const items = el('ol', { cls: 'items' });
    const node = el('li', { cls: 'turn', data: { turn: turnId } }, [
      el('div', { cls: 'turn-head' }, [el('span', { cls: 'id', text: turnId }), status, detail]),
      items,
    ]);
    turn = { node, status, detail, items };
    this.turns.set(turnId, turn);
    this.list.append(node);
    while (this.list.children.length > MAX_TURNS) {
      const old = this.list.firstElementChild;
      this.turns.delete(old.dataset.turn);
      old.remove();
    }
    return turn;
  }

  turn(data) {
    const turn = this.turnNode(data.id);
    turn.status.textContent = data.status ?? '';
    turn.status.className = `badge ${data.status ?? ''}`;
    const parts = [];
    if (data.error) parts.push(`${data.error.code ?? 'error'}: ${data.error.message ?? ''}`);
    if (data.usage) parts.push(`tokens in ${data.usage.input_tokens ?? 0}, out ${data.usage.output_tokens ?? 0}`);
    turn.detail.textContent = parts.join(' · ');
  }

  item(data, done) {
    const item = data.item;
    if (!item || !item.id) return;
    let entry = this.items.get(item.id);
    if (!entry) {
      const text = el('pre', { cls: 'text' });
      const node = el('li', { cls: `item ${item.type ?? ''}`, data: { item: item.id, deltas: 0 } }, [
        el('div', { cls: 'label', text: labelOf(item) }),
        text,
      ]);
      entry = { node, text, deltas: 0 };
      this.items.set(item.id, entry);
      this.turnNode(data.turn_id ?? item.turn_id).items.append(node);
    }
    const text = finalText(item);
    // The done text is the item as stored (redacted like every delta);
    // a user message comes whole with its added event.
    if (text !== null && (done || entry.deltas === 0)) entry.text.textContent = text;
    entry.node.dataset.status = item.status ?? '';
    if (done && item.type === 'command_execution' && item.exit_code !== null && item.exit_code !== undefined)
      entry.node.querySelector('.label').textContent = `${labelOf(item)}  (exit ${item.exit_code})`;
  }

  delta(data) {
    const entry = this.items.get(data.item_id);
    if (!entry || typeof data.delta !== 'string') return;
    entry.text.append(data.delta);
    entry.deltas += 1;
    entry.node.dataset.deltas = String(entry.deltas);
  }
}
