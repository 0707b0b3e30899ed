// The polled panels: background processes and the followed one's output
// (docs/process.md), terminals (docs/terminal.md), recent audit decisions
// (GET /audit/recent) and a few server metrics (GET /metrics, Prometheus
// text). Each shows why it is empty when its call is refused.

import { failure, get, REQUEST_PREFIX } from './api.js';
import { byId, clock, el, fillTable, note, row } from './dom.js';

// The process whose output is shown, and how far it was read.
let watched = null;
const KEEP_OUTPUT = 1 << 20;
const AUDIT_ROWS = 50;

function watch(pid) {
  watched = { pid, next: 0, eof: false };
  byId('process-output').textContent = '';
  byId('process-output').hidden = false;
  byId('process-output-title').hidden = false;
  byId('process-output-title').textContent = `Output of ${pid}`;
}

export function stopPanels() {
  watched = null;
  for (const id of ['processes', 'terminals', 'audit', 'metrics']) byId(id).replaceChildren();
  byId('process-output').hidden = true;
  byId('process-output-title').hidden = true;
}

async function readOutput() {
  if (!watched || watched.eof) return;
  const w = watched;
  const answer = await get(`/process/${encodeURIComponent(w.pid)}/output?after=${w.next}`);
  if (w !== watched) return;
  const out = byId('process-output');
  if (answer.status !== 200) {
    out.append(`\n[${failure(answer)}]\n`);
    w.eof = true;
    return;
  }
  const body = answer.body;
  if (body.dropped) out.append(`[${body.dropped} bytes no longer kept]\n`);
  out.append(body.output ?? '');
  // The newest megabyte stays: a chatty process must not grow the page without end.
  if (out.textContent.length > KEEP_OUTPUT) out.textContent = out.textContent.slice(-KEEP_OUTPUT);
  w.next = body.next ?? w.next;
  w.eof = body.eof === true;
  if (w.eof) out.append(`\n[exited${body.exit_code === null ? '' : ` with ${body.exit_code}`}]\n`);
}

// One table filled from one GET: its rows, or the note saying why there are none.
async function refreshTable({ path, table, noteId, what, hint, rows, empty }) {
  const answer = await get(path);
  if (answer.status !== 200) {
    note(byId(noteId), `${what} unavailable (${failure(answer)})`, 'error');
    return fillTable(byId(table), [], '');
  }
  note(byId(noteId), hint);
  fillTable(byId(table), rows(answer.body), empty);
}

export async function refreshProcesses() {
  await refreshTable({
    path: '/process/list',
    table: 'processes',
    noteId: 'processes-note',
    what: 'processes',
    hint: 'Pick a process to read its output.',
    empty: 'No background processes.',
    rows: (body) =>
      (body.processes ?? []).map((p) => {
        const tr = row([p.pid, p.command, p.state, p.exit_code, clock(p.started_at)], {
          cls: watched && watched.pid === p.pid ? 'current' : '',
        });
        tr.addEventListener('click', () => watch(p.pid));
        return tr;
      }),
  });
  await readOutput();
}

export function refreshTerminals() {
  return refreshTable({
    path: '/pty/sessions',
    table: 'terminals',
    noteId: 'terminals-note',
    what: 'terminals',
    hint: '',
    empty: 'No terminals.',
    rows: (body) =>
      (body.sessions ?? []).map((t) =>
        row([t.id, t.pid, `${t.cols}×${t.rows}`, t.alive ? 'yes' : 'no', t.connected ? 'yes' : 'no', clock(t.created_at)]),
      ),
  });
}

// One audit record as a table row; refusals stand out.
function auditRow(r) {
  const rule = r.code ? `${r.rule} ${r.code}` : r.rule;
  const cells = [r.time, r.identity, `${r.method} ${r.path} (${r.endpoint})`, r.decision, rule, r.status, r.duration_ms];
  return row(cells, { cls: r.decision === 'deny' ? 'deny' : '' });
}

export function refreshAudit() {
  return refreshTable({
    // All the server keeps (GET /audit/recent's capacity): the page's own
    // calls, which an `audit: all` rule records too, are left out here.
    path: '/audit/recent?limit=256',
    table: 'audit',
    noteId: 'audit-note',
    what: 'audit',
    hint: "Newest first, this page's own calls left out; which requests are recorded is the policy's audit rule.",
    empty: 'No audit records yet.',
    rows: (body) =>
      (body.records ?? [])
        .filter((r) => !String(r.request_id ?? '').startsWith(REQUEST_PREFIX))
        .slice(0, AUDIT_ROWS)
        .map(auditRow),
  });
}

// The metrics shown, each the sum of its samples over every label set.
const METRICS = [
  ['abx_http_requests_total', 'HTTP requests'],
  ['abx_http_requests_in_flight', 'requests in flight'],
  ['abx_http_streams_open', 'open streams'],
  ['abx_agent_turns_running', 'agent turns running'],
  ['abx_agent_sessions', 'agent sessions'],
];

// The metric name of a sample line and its value: `name{labels} value [ts]`,
// label values quoted with \-escapes (a `}` may sit inside one).
export function parseSample(line) {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!name) return null;
  let at = name[0].length;
  if (line[at] === '{') {
    let quoted = false;
    for (at += 1; at < line.length; at += 1) {
      const c = line[at];
      if (quoted && c === '\\') at += 1;
      else if (c === '"') quoted = !quoted;
      else if (c === '}' && !quoted) break;
    }
    at += 1;
  }
  const text = line.slice(at).trim().split(/\s+/)[0];
  const value = Number(text);
  return text && Number.isFinite(value) ? { name: name[0], value } : null;
}

export async function refreshMetrics() {
  const answer = await get('/metrics');
  const list = byId('metrics');
  if (answer.status !== 200) {
    list.replaceChildren();
    return note(byId('metrics-note'), `metrics unavailable (${failure(answer)})`);
  }
  const sums = new Map();
  for (const line of answer.text.split('\n')) {
    if (line.startsWith('#')) continue;
    const sample = parseSample(line);
    if (sample) sums.set(sample.name, (sums.get(sample.name) ?? 0) + sample.value);
  }
  list.replaceChildren(
    ...METRICS.filter(([name]) => sums.has(name)).flatMap(([name, label]) => [
      el('dt', { text: label }),
      el('dd', { text: sums.get(name), data: { metric: name } }),
    ]),
  );
  note(byId('metrics-note'), list.children.length ? '' : 'metrics unavailable (none of the known series)');
}
