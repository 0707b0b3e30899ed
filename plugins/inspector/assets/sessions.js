// The agent sessions panel: the caller's sessions (GET /v1/agents/sessions,
// polled), and one followed session's event stream
// (GET /v1/agents/sessions/{id}/events), replayed from its start and resumed
// with Last-Event-ID after a break. The newest session is followed until the
// user picks one; one stream at a time keeps the browser's six connections
// per server free for the other panels.

import { failure, get, serverEvents, StreamRefused } from './api.js';
import { byId, el, note } from './dom.js';
import { SessionView } from './session_view.js';

let followed = null;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function stream(f) {
  let last = '0';
  while (!f.controller.signal.aborted) {
    try {
      const path = `/v1/agents/sessions/${encodeURIComponent(f.id)}/events`;
      for await (const event of serverEvents(path, last, f.controller.signal)) {
        if (event.id) last = event.id;
        let data;
        try {
          data = JSON.parse(event.data);
        } catch {
          continue;
        }
        f.view.apply({ type: event.event, ...data });
        f.view.note(`live, event ${last}`);
        if (data.type === 'agent.session.failed') return;
      }
    } catch (error) {
      if (f.controller.signal.aborted) return;
      if (error instanceof StreamRefused && error.status !== 429) {
        f.view.note(`events: ${error.status}`, 'error');
        return;
      }
    }
    f.view.note(`reconnecting after event ${last}`);
    await sleep(1000);
  }
}

function follow(id, pinned) {
  if (followed) followed.controller.abort();
  followed = { id, pinned, controller: new AbortController(), view: new SessionView(byId('session-view'), id) };
  stream(followed);
}

export function stopSessions() {
  if (followed) followed.controller.abort();
  followed = null;
  byId('sessions').replaceChildren();
  byId('session-view').replaceChildren();
}

export async function refreshSessions() {
  const answer = await get('/v1/agents/sessions?limit=20');
  const list = byId('sessions');
  if (answer.status !== 200 || !Array.isArray(answer.body?.data)) {
    note(byId('sessions-note'), `sessions unavailable (${failure(answer)})`, 'error');
    list.replaceChildren();
    return;
  }
  const sessions = answer.body.data;
  note(byId('sessions-note'), sessions.length ? 'Pick a session to follow it.' : 'No agent sessions.');
  const newest = sessions.reduce((a, b) => (b.created_at > (a?.created_at ?? -1) ? b : a), null);
  if (newest && (!followed || (!followed.pinned && followed.id !== newest.id))) follow(newest.id, false);
  list.replaceChildren(
    ...sessions.map((s) => {
      const button = el('button', {
        cls: followed && followed.id === s.id ? 'current' : '',
        text: `${s.id} · ${s.agent?.id ?? ''} · ${s.status ?? ''}`,
      });
      button.type = 'button';
      button.addEventListener('click', () => follow(s.id, true));
      return el('li', {}, [button]);
    }),
  );
}
