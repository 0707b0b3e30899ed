// A scripted OpenAI Responses API model on 127.0.0.1 for the realcli cases
// (codex speaks `POST /v1/responses`, SSE). It follows the stub protocol of
// transcripts/README.md, deciding each reply from the request body alone:
//   1. the last input item is a function_call_output → final text
//      `All done: hello-from-tool` (`The command failed as expected.` when the
//      conversation is a FAILTOOL one);
//   2. the last user text contains NOTOOL → text only
//      (`Resumed fine; no tool needed this time.`);
//   3. FAILTOOL and a shell tool offered → call it with `ls /nonexistent-stub-dir`;
//   4. `hello-from-tool` and a shell tool offered → reasoning summary (when the
//      request asks for one) + `I'll run the command now.` + one
//      `exec_command {"cmd":"echo hello-from-tool"}` call;
//   5. anything else → `Stub title`.
// Rules of this suite's own, before 3: ENVCHECK and a shell tool offered →
// call it with `env` (a case then reads the listing the CLI sends back);
// MCPTOOL and an MCP tool offered (codex: a `namespace` tool `mcp__<server>`)
// → call that tool with {"q":"answer"}.
// Every path under /deny/ answers 401 in OpenAI's error shape instead, so one
// stub serves a working agent (base_url …/v1) and a rejected one (…/deny/v1).
//
// The stub is also an HTTP proxy sink: an agent whose HTTP(S)_PROXY points at
// it shows every attempt to reach another host as a `stray` record (CONNECT
// or an absolute-URI request), answered 403 and never forwarded.
//
// Records: `requests` (method, path, headers without credentials, parsed
// body, the reply chosen with the usage reported), `stray`, and
// `authorizations` (the Authorization
// values seen, kept only in memory so a case can check the key arrived).
import http from 'node:http';

export const TOOL_TEXT = "I'll run the command now.";
export const FINAL_TEXT = 'All done: hello-from-tool';
export const FAIL_FINAL_TEXT = 'The command failed as expected.';
export const NOTOOL_TEXT = 'Resumed fine; no tool needed this time.';
export const TITLE_TEXT = 'Stub title';
export const REASONING_TEXT = 'Running the command the user asked for.';

// The text of a message input item (string content or input_text parts).
function messageText(item) {
  if (typeof item?.content === 'string') return item.content;
  return (item?.content ?? []).map((p) => p?.text ?? '').join('');
}

function lastUserText(input) {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if ((item.type === 'message' || item.type === undefined) && item.role === 'user') return messageText(item);
  }
  return '';
}

function shellToolOffered(body) {
  return (body.tools ?? []).some((t) => t?.name === 'exec_command' || t?.type === 'local_shell' || t?.name === 'shell');
}

// The first MCP tool a codex request offers: {namespace, name}.
function mcpToolOffered(body) {
  for (const t of body.tools ?? []) {
    if (t?.type === 'namespace' && t.name?.startsWith('mcp__') && t.tools?.length)
      return { namespace: t.name, name: t.tools[0].name };
  }
  return null;
}

// The protocol's decision for one request body.
export function chooseReply(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const last = input.at(-1);
  if (last?.type === 'function_call_output') {
    // The conversation the call belongs to: the user text before the call.
    const callAt = input.findLastIndex((i) => i.type === 'function_call');
    const asked = lastUserText(input.slice(0, callAt < 0 ? input.length : callAt));
    return asked.includes('FAILTOOL') ? { step: 'final_fail', text: FAIL_FINAL_TEXT } : { step: 'final', text: FINAL_TEXT };
  }
  const user = lastUserText(input);
  if (user.includes('NOTOOL')) return { step: 'text', text: NOTOOL_TEXT };
  const mcp = mcpToolOffered(body);
  if (user.includes('MCPTOOL') && mcp) return { step: 'mcptool', text: TOOL_TEXT, call: { ...mcp, arguments: { q: 'answer' } } };
  if (user.includes('ENVCHECK') && shellToolOffered(body))
    return { step: 'envcheck', text: TOOL_TEXT, cmd: 'env' };
  if (user.includes('FAILTOOL') && shellToolOffered(body))
    return { step: 'failtool', text: TOOL_TEXT, cmd: 'ls /nonexistent-stub-dir' };
  if (user.includes('hello-from-tool') && shellToolOffered(body))
    return { step: 'tool', text: TOOL_TEXT, cmd: 'echo hello-from-tool', reasoning: Boolean(body.reasoning) };
  return { step: 'title', text: TITLE_TEXT };
}

// Splits text into three deltas, as the recorded stub did.
function thirds(text) {
  const n = Math.ceil(text.length / 3) || 1;
  return [text.slice(0, n), text.slice(n, 2 * n), text.slice(2 * n)].filter((s) => s.length > 0);
}

// The SSE events of one streamed response, in the Responses API's order.
export function responseEvents(body, reply, ids) {
  const events = [];
  let seq = 0;
  const push = (type, data) => events.push({ type, sequence_number: seq++, ...data });
  const responseId = `resp_stub_${ids.next()}`;
  const base = {
    id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000),
    model: body.model ?? 'stub-model', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [],
  };
  push('response.created', { response: { ...base, status: 'in_progress' } });
  push('response.in_progress', { response: { ...base, status: 'in_progress' } });
  const output = [];

  if (reply.reasoning) {
    const id = `rs_stub_${ids.next()}`, output_index = output.length;
    push('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [] } });
    push('response.reasoning_summary_part.added', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    for (const delta of thirds(REASONING_TEXT))
      push('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta });
    push('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index: 0, text: REASONING_TEXT });
    push('response.reasoning_summary_part.done', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: REASONING_TEXT } });
    const item = { id, type: 'reasoning', summary: [{ type: 'summary_text', text: REASONING_TEXT }] };
    push('response.output_item.done', { output_index, item });
    output.push(item);
  }

  {
    const id = `msg_stub_${ids.next()}`, output_index = output.length;
    push('response.output_item.added', { output_index, item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
    push('response.content_part.added', { item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const delta of thirds(reply.text))
      push('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta, logprobs: [] });
    push('response.output_text.done', { item_id: id, output_index, content_index: 0, text: reply.text, logprobs: [] });
    const part = { type: 'output_text', text: reply.text, annotations: [] };
    push('response.content_part.done', { item_id: id, output_index, content_index: 0, part });
    const item = { id, type: 'message', role: 'assistant', status: 'completed', content: [part] };
    push('response.output_item.done', { output_index, item });
    output.push(item);
  }

  const call = reply.cmd ? { name: 'exec_command', arguments: { cmd: reply.cmd, yield_time_ms: 10000 } } : reply.call;
  if (call) {
    const id = `fc_stub_${ids.next()}`, call_id = `call_stub_${ids.next()}`, output_index = output.length;
    const args = JSON.stringify(call.arguments);
    const named = { name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}) };
    push('response.output_item.added', { output_index, item: { id, type: 'function_call', status: 'in_progress', call_id, ...named, arguments: '' } });
    for (const delta of thirds(args)) push('response.function_call_arguments.delta', { item_id: id, output_index, delta });
    push('response.function_call_arguments.done', { item_id: id, output_index, arguments: args });
    const item = { id, type: 'function_call', status: 'completed', call_id, ...named, arguments: args };
    push('response.output_item.done', { output_index, item });
    output.push(item);
  }

  push('response.completed', { response: { ...base, status: 'completed', output, usage: fakeUsage(body, reply) } });
  return events;
}

// Fake token counts, as in the captures: about a quarter of the request size.
export function fakeUsage(body, reply) {
  const input_tokens = Math.ceil(JSON.stringify(body).length / 4);
  const output_tokens = Math.ceil(reply.text.length / 4) + (reply.cmd || reply.call ? 8 : 0);
  return {
    input_tokens, input_tokens_details: { cached_tokens: 0 },
    output_tokens, output_tokens_details: { reasoning_tokens: reply.reasoning ? 5 : 0 },
    total_tokens: input_tokens + output_tokens,
  };
}

// A minimal MCP server (streamable HTTP, plain JSON replies) at /mcp with one
// tool, `lookup`, so a case can watch a CLI reach an MCP server it was
// configured with and call its tool.
export const MCP_TOOL = 'lookup';
export const MCP_RESULT = 'lookup result: 42';

function answerMcp(req, res, body) {
  const reply = (result) => res.writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  if (req.method !== 'POST' || !body || body.id === undefined) {
    // GET (server-sent stream) is not offered; notifications are accepted.
    res.writeHead(req.method === 'POST' ? 202 : 405).end();
    return;
  }
  if (body.method === 'initialize')
    return reply({ protocolVersion: body.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'realcli-stub', version: '1.0.0' } });
  if (body.method === 'tools/list')
    return reply({ tools: [{ name: MCP_TOOL, description: 'Looks a word up.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }] });
  if (body.method === 'tools/call')
    return reply({ content: [{ type: 'text', text: MCP_RESULT }], isError: false });
  res.writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: `no method ${body.method}` } }));
}

const UNAUTHORIZED = {
  error: {
    message: 'Incorrect API key provided: stub rejects every key.',
    type: 'invalid_request_error', param: null, code: 'invalid_api_key',
  },
};

function withoutCredentials(headers) {
  const out = { ...headers };
  for (const k of ['authorization', 'x-api-key', 'api-key']) if (k in out) out[k] = '<redacted>';
  return out;
}

/**
 * Starts the stub on 127.0.0.1 (port 0). Returns {port, url(prefix), requests,
 * stray, authorizations, close()}; url('/v1') is the working base_url,
 * url('/deny/v1') the one that answers 401.
 */
export async function startResponsesStub() {
  const requests = [], stray = [], authorizations = [], mcpRequests = [], mcpAuthorizations = [];
  let counter = 0;
  const ids = { next: () => String(++counter).padStart(4, '0') };
  const server = http.createServer((req, res) => {
    // A proxy request names a whole URL: a CLI trying to leave loopback.
    if (/^[a-z]+:\/\//i.test(req.url)) {
      stray.push({ method: req.method, target: req.url, userAgent: req.headers['user-agent'] ?? null });
      res.writeHead(403).end();
      req.resume();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = { unparsed: raw.slice(0, 200) }; }
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/mcp') {
        if (req.headers.authorization) mcpAuthorizations.push(req.headers.authorization);
        mcpRequests.push({ method: req.method, headers: withoutCredentials(req.headers), body });
        answerMcp(req, res, body);
        return;
      }
      const record = { n: requests.length + 1, method: req.method, path: url.pathname, headers: withoutCredentials(req.headers), body };
      requests.push(record);
      if (req.headers.authorization) authorizations.push(req.headers.authorization);
      if (url.pathname.startsWith('/deny/')) {
        record.reply = { step: 'auth_error_401' };
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(UNAUTHORIZED));
        return;
      }
      if (req.method !== 'POST' || !url.pathname.endsWith('/responses') || !body) {
        record.reply = { step: 'not_found' };
        res.writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `stub: no route ${req.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      const reply = chooseReply(body);
      record.reply = { ...reply, usage: fakeUsage(body, reply) };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const e of responseEvents(body, reply, ids)) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
      res.end();
    });
  });
  server.on('connect', (req, socket) => {
    stray.push({ method: 'CONNECT', target: req.url, userAgent: req.headers['user-agent'] ?? null });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    port,
    url: (path = '/v1') => `http://127.0.0.1:${port}${path}`,
    proxy: `http://127.0.0.1:${port}`,
    requests, stray, authorizations, mcpRequests, mcpAuthorizations,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
