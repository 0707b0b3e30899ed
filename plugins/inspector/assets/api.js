// The inspector's only way to the server: the public API, each call with
// the token the user pasted. The token lives in this module's variable and
// nowhere else (no web storage, cookie or URL), so it is gone when the tab
// closes or the user forgets it.

let token = '';

// Every call carries X-Request-Id: <this tab's prefix><n>, so the audit panel
// can leave the page's own polling out of the records it shows.
const tab = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
export const REQUEST_PREFIX = `inspector-${tab}-`;
let sequence = 0;

export function setToken(value) {
  token = value;
}

export function hasToken() {
  return token !== '';
}

function request(headers = {}, signal = undefined) {
  return {
    headers: { 'X-Access-Token': token, 'X-Request-Id': `${REQUEST_PREFIX}${++sequence}`, ...headers },
    cache: 'no-store',
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
    signal,
  };
}

/** GET `path`: {status, body (parsed JSON or null), text}. */
export async function get(path) {
  const res = await fetch(path, request());
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (the metrics text): the caller reads `text`.
  }
  return { status: res.status, body, text };
}

/** What a failed answer says: the native {error, code} or the OpenAI {error: {message, code}}. */
export function failure(answer) {
  const error = answer.body && answer.body.error;
  let message = '';
  if (typeof error === 'string') message = error;
  else if (error && typeof error.message === 'string') message = error.message;
  return `${answer.status}${message ? `: ${message}` : ''}`;
}

/** A stream that did not start: its status and body. */
export class StreamRefused extends Error {
  constructor(status, text) {
    super(`stream refused (${status})`);
    this.status = status;
    this.text = text;
  }
}

/**
 * The server-sent events of `path`, as {id, event, data}. fetch() and a
 * ReadableStream instead of EventSource, which cannot send the token
 * header; `lastEventId` resumes after that event (Last-Event-ID).
 */
export async function* serverEvents(path, lastEventId, signal) {
  const headers = { Accept: 'text/event-stream' };
  if (lastEventId !== null && lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(path, request(headers, signal));
  if (res.status !== 200 || !res.body) throw new StreamRefused(res.status, await res.text());
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = { id: null, event: 'message', data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      if (line === '') {
        if (event.data.length) yield { id: event.id, event: event.event, data: event.data.join('\n') };
        event = { id: null, event: 'message', data: [] };
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = text;
        else if (field === 'event') event.event = text;
        else if (field === 'data') event.data.push(text);
      }
    }
  }
}
