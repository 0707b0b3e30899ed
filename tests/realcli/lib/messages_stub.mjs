// A scripted Anthropic Messages API (POST /v1/messages, SSE) on 127.0.0.1 for
// the real Claude Code CLI, following the protocol that produced the shared
// transcripts (transcripts/README.md, "The stub"): each reply is decided from
// the request body alone —
//   1. the last message holds a tool_result   → final text "All done: <output>"
//      ("The command failed as expected." when the result is an error);
//   2. the last user text contains NOTOOL     → "Resumed fine; no tool needed this time.";
//   3. it contains FAILTOOL (Bash offered)     → Bash `ls /nonexistent-stub-dir`;
//   4. it mentions hello-from-tool (Bash offered) → [thinking] + "I'll run the command
//      now." + Bash {"command":"echo hello-from-tool","description":…};
//   5. it contains MCPWRITE (mcp__sandbox__file_write offered) → that tool,
//      writing from-claude.txt through the sandbox's /mcp;
//   6. anything else                            → "Stub title".
// A request whose x-api-key is not the expected key, or any request while
// mode is '401', gets 401 in Anthropic's shape
// {"type":"error","error":{"type":"authentication_error",…}}.
// Text is streamed as 3 deltas; usage is fake (≈ request JSON length / 4).
//
// Every request is recorded (method, path, selected headers, body, the reply
// step, the input tokens reported), without the key itself.
import http from 'node:http';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

// The text of a message's content: a string, or the text blocks of a list.
function textOf(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).filter((b) => b?.type === 'text').map((b) => b.text).join('\n');
}

// Claude sends a role:"system" message (environment info) inside `messages`;
// the turn's own last message is the last non-system one.
function lastMessage(body) {
  const messages = (body.messages ?? []).filter((m) => m.role !== 'system');
  return messages.at(-1);
}

function split3(text) {
  const n = Math.ceil(text.length / 3);
  return [text.slice(0, n), text.slice(n, 2 * n), text.slice(2 * n)].filter((p) => p.length);
}

// The reply plan for one request: { step, blocks: [{type, ...}], stop }.
export function planReply(body) {
  const last = lastMessage(body) ?? { role: 'user', content: '' };
  const offersBash = (body.tools ?? []).some((t) => t.name === 'Bash');
  const results = Array.isArray(last.content) ? last.content.filter((b) => b?.type === 'tool_result') : [];
  if (last.role === 'user' && results.length) {
    const r = results.at(-1);
    const output = typeof r.content === 'string' ? r.content : textOf(r.content);
    if (r.is_error) return { step: 'final_fail', blocks: [{ type: 'text', text: 'The command failed as expected.' }], stop: 'end_turn' };
    return { step: 'final', blocks: [{ type: 'text', text: `All done: ${output.trim()}` }], stop: 'end_turn' };
  }
  const text = last.role === 'user' ? textOf(last.content) : '';
  if (text.includes('NOTOOL'))
    return { step: 'text', blocks: [{ type: 'text', text: 'Resumed fine; no tool needed this time.' }], stop: 'end_turn' };
  const thinking = body.thinking && body.thinking.type !== 'disabled';
  const toolCall = (command, description) => ({
    type: 'tool_use', name: 'Bash', input: { command, description },
  });
  if (text.includes('FAILTOOL') && offersBash)
    return {
      step: 'failtool',
      blocks: [
        ...(thinking ? [{ type: 'thinking', thinking: 'The user wants a failing listing. I will call the shell tool.' }] : []),
        { type: 'text', text: "I'll run the command now." },
        toolCall('ls /nonexistent-stub-dir', 'List a missing directory'),
      ],
      stop: 'tool_use',
    };
  if (text.includes('hello-from-tool') && offersBash)
    return {
      step: 'tool',
      blocks: [
        ...(thinking ? [{ type: 'thinking', thinking: 'The user wants me to run a shell command. I will call the shell tool.' }] : []),
        { type: 'text', text: "I'll run the command now." },
        toolCall('echo hello-from-tool', 'Print hello-from-tool'),
      ],
      stop: 'tool_use',
    };
  const offersMcpWrite = (body.tools ?? []).some((t) => t.name === 'mcp__sandbox__file_write');
  if (text.includes('MCPWRITE') && offersMcpWrite)
    return {
      step: 'mcp_write',
      blocks: [
        { type: 'text', text: "I'll write the file through the sandbox." },
        { type: 'tool_use', name: 'mcp__sandbox__file_write',
          input: { path: 'from-claude.txt', content_base64: Buffer.from('written through /mcp\n').toString('base64') } },
      ],
      stop: 'tool_use',
    };
  return { step: 'other', blocks: [{ type: 'text', text: 'Stub title' }], stop: 'end_turn' };
}

export async function startMessagesStub({ apiKey, mode = 'ok' } = {}) {
  let messageSeq = 0;
  let toolSeq = 0;
  const stub = { requests: [], mode, url: '', port: 0 };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
      const url = new URL(req.url, 'http://127.0.0.1');
      const record = {
        n: stub.requests.length + 1,
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: {
          'x-claude-code-session-id': req.headers['x-claude-code-session-id'] ?? null,
          'user-agent': req.headers['user-agent'] ?? null,
          'anthropic-version': req.headers['anthropic-version'] ?? null,
        },
        key_matches: apiKey === undefined ? null : req.headers['x-api-key'] === apiKey,
        body,
      };
      stub.requests.push(record);

      if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${url.pathname}` } }));
        return;
      }
      if (stub.mode === '401' || record.key_matches === false) {
        record.step = 'auth_error_401';
        res.writeHead(401, { 'content-type': 'application/json', 'request-id': `req_stub_${record.n}` });
        res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: `req_stub_${record.n}` }));
        return;
      }
      if (!body) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } }));
        return;
      }
      const plan = planReply(body);
      record.step = plan.step;
      const inputTokens = Math.max(1, Math.round(raw.length / 4));
      record.input_tokens = inputTokens;
      const id = `msg_stub_${String(++messageSeq).padStart(4, '0')}`;
      const model = body.model ?? 'claude-stub';
      const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      res.writeHead(200, SSE_HEADERS);
      send('message_start', {
        message: {
          id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' },
        },
      });
      send('ping', {});
      let outputTokens = 0;
      plan.blocks.forEach((block, index) => {
        if (block.type === 'thinking') {
          send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
          for (const part of split3(block.thinking)) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: part } });
          send('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'c3R1Yi1zaWduYXR1cmU=' } });
          outputTokens += Math.ceil(block.thinking.length / 4);
        } else if (block.type === 'text') {
          send('content_block_start', { index, content_block: { type: 'text', text: '' } });
          for (const part of split3(block.text)) send('content_block_delta', { index, delta: { type: 'text_delta', text: part } });
          outputTokens += Math.ceil(block.text.length / 4);
        } else if (block.type === 'tool_use') {
          const toolId = `toolu_stub_${String(++toolSeq).padStart(4, '0')}`;
          record.tool_use_id = toolId;
          send('content_block_start', { index, content_block: { type: 'tool_use', id: toolId, name: block.name, input: {} } });
          const json = JSON.stringify(block.input);
          for (const part of split3(json)) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
          outputTokens += Math.ceil(json.length / 4);
        }
        send('content_block_stop', { index });
      });
      record.output_tokens = outputTokens;
      send('message_delta', { delta: { stop_reason: plan.stop, stop_sequence: null }, usage: { output_tokens: outputTokens } });
      send('message_stop', {});
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.port = server.address().port;
  stub.url = `http://127.0.0.1:${stub.port}`;
  stub.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return stub;
}
