// The native routes with nothing but fetch (Node 18+ or a browser): JSON
// calls, the native error envelope, an SSE stream read by hand, and output
// paged by offset.
//
//   ABX_URL=http://127.0.0.1:9000 ABX_TOKEN=... node native.mjs
import { url, token, expect } from './config.mjs';

const headers = token ? { 'X-Access-Token': token } : {};

// Every native error is {"error": message, "type": ..., "code"?: ...}; the
// code (when present) is the stable part to branch on.
class ApiError extends Error {
  constructor(status, body) {
    super(`${status} ${body.type}${body.code ? ` (${body.code})` : ''}: ${body.error}`);
    Object.assign(this, { status, body });
  }
}

async function api(method, path, body) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url + path, init);
  const json = await res.json();
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

// Files: content travels as base64.
await api('POST', '/upload', {
  path: 'native-example/notes.txt',
  content_base64: Buffer.from('first line\n').toString('base64'),
});
const file = await api('GET', '/download?path=native-example/notes.txt');
const text = Buffer.from(file.content_base64, 'base64').toString();
console.log(`${file.path}: ${JSON.stringify(text)}`);
expect(text === 'first line\n', 'the uploaded text back');

// A refusal: the error's code says why.
try {
  await api('GET', '/download?path=native-example/missing.txt');
  expect(false, 'a 404 for a missing file');
} catch (err) {
  console.log(err.message);
  expect(err.status === 404 && err.body.type === 'FileNotFoundError', 'FileNotFoundError');
}

// /shell answers when the command has ended.
const shell = await api('POST', '/shell', { command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
console.log(shell);
expect(shell.exit_code === 3 && shell.stdout === 'out\n', 'exit code 3 and its output');

// /shell/stream: Server-Sent Events, one event per line of output, then
// `exit`. EventSource cannot send headers, so read the body as a stream.
const res = await fetch(`${url}/shell/stream`, {
  method: 'POST',
  headers: { ...headers, 'Content-Type': 'application/json' },
  body: JSON.stringify({ command: ['sh', '-c', 'for i in 1 2 3; do echo line $i; done'] }),
});
const events = [];
let buffer = '';
const decoder = new TextDecoder();
for await (const chunk of res.body) {
  buffer += decoder.decode(chunk, { stream: true });
  let end;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const event = block.match(/^event: (.*)$/m)?.[1] ?? 'message';
    const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (data) events.push({ event, data: JSON.parse(data) });
  }
}
for (const e of events) console.log(`event ${e.event}: ${JSON.stringify(e.data)}`);
expect(events.at(-1)?.event === 'exit', 'an exit event last');

// A background process: its output is read by byte offset (`after`), so a
// client that polls never sees a byte twice.
const proc = await api('POST', '/process/start', {
  command: ['sh', '-c', 'for i in 1 2 3; do echo tick $i; sleep 0.2; done'],
});
let after = 0;
let output = '';
for (let i = 0; i < 50; i++) {
  const page = await api('GET', `/process/${proc.pid}/output?after=${after}`);
  output += page.output;
  after = page.next;
  if (page.eof) break; // exited, and every byte read
  await new Promise((r) => setTimeout(r, 200));
}
console.log(JSON.stringify(output));
expect(output === 'tick 1\ntick 2\ntick 3\n', 'three ticks, each once');

await api('DELETE', '/files?path=native-example');
