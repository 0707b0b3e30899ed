// The inspector page's entry point: the token field, then every panel
// refreshed every two seconds while a token is held. The page only reads;
// it starts, signals and deletes nothing.

import { failure, get, hasToken, setToken } from './api.js';
import { byId, note } from './dom.js';
import { refreshAudit, refreshMetrics, refreshProcesses, refreshTerminals, stopPanels } from './panels.js';
import { refreshSessions, stopSessions } from './sessions.js';

const PERIOD_MS = 2000;
// Bumped by every connect and forget: a stale refresh loop stops.
let generation = 0;

async function refreshAll(mine) {
  const panels = [refreshSessions, refreshProcesses, refreshTerminals, refreshAudit, refreshMetrics];
  await Promise.allSettled(panels.map((refresh) => refresh()));
  if (mine === generation && hasToken()) return setTimeout(() => refreshAll(mine), PERIOD_MS);
  // Forgotten while these calls ran: clear what they filled in.
  if (!hasToken()) {
    stopSessions();
    stopPanels();
  }
}

function forget(message, kind = '') {
  generation += 1;
  setToken('');
  stopSessions();
  stopPanels();
  byId('panels').hidden = true;
  byId('forget').hidden = true;
  byId('connect').hidden = false;
  byId('token').disabled = false;
  note(byId('status'), message, kind);
}

async function connect() {
  const field = byId('token');
  const value = field.value.trim();
  // The field is emptied at once: the token is kept in api.js only.
  field.value = '';
  if (!value) return note(byId('status'), 'Paste a token first.', 'error');
  setToken(value);
  const mine = ++generation;
  const answer = await get('/capabilities');
  if (mine !== generation) return;
  if (answer.status !== 200) return forget(`Token refused (${failure(answer)}).`, 'error');
  const identity = answer.body.identity ?? {};
  note(byId('status'), `Connected as ${identity.id ?? '?'} (scopes: ${(identity.scopes ?? []).join(', ')}).`, 'ok');
  field.disabled = true;
  byId('connect').hidden = true;
  byId('forget').hidden = false;
  byId('panels').hidden = false;
  refreshAll(mine);
}

byId('connect').addEventListener('click', connect);
byId('token').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') connect();
});
byId('forget').addEventListener('click', () => forget('Token forgotten.'));
