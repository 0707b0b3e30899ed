// A scripted OpenAI Chat Completions model on 127.0.0.1 for the realcli cases
// (qwen speaks this wire), following the stub protocol of
// transcripts/README.md: it decides each reply from the request body alone
// and streams real Chat Completions SSE chunks.
//
//  1. last message is a tool result (role "tool")  -> final text
//     "All done: hello-from-tool" (or "The command failed as expected." when
//     the tool reported a non-zero exit code);
//  2. last user text contains NOTOOL               -> "Resumed fine; no tool needed this time."
//  3. last user text contains FAILTOOL + shell tool -> run_shell_command `ls /nonexistent-stub-dir`
//  4. last user text mentions hello-from-tool + shell tool -> reasoning, the text
//     "I'll run the command now." and one run_shell_command call
//     {"command":"echo hello-from-tool","description":..,"is_background":false};
//  5. anything else (qwen's background requests: memory extraction, titles) -> "Stub title".
// A request whose bearer key is not the stub's key gets a 401 in OpenAI's
// error shape ({"error":{"message","type":"invalid_request_error","code":"invalid_api_key"}}),
// which is how a case provokes an authentication failure. Text is split into
// 3 deltas; a usage chunk follows when stream_options.include_usage is set.
import http from 'node:http';

export const FINAL_TEXT = 'All done: hello-from-tool';
export const FAILED_TEXT = 'The command failed as expected.';
export const NOTOOL_TEXT = 'Resumed fine; no tool needed this time.';
export const INTRO_TEXT = "I'll run the command now.";
export const AUX_TEXT = 'Stub title';
const REASONING = 'The user wants me to run a shell command. I will call the shell tool.';
const SHELL_TOOL = 'run_shell_command';

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : p?.text ?? '')).join('\n');
  return '';
}

function split3(text) {
  const size = Math.ceil(text.length / 3) || 1;
  return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)].filter((s) => s.length);
}

/** What the stub answers to one request body: {step, text?, tool?, args?, reasoning?}. */
export function decide(body) {
  const messages = body?.messages ?? [];
  const last = messages.at(-1) ?? {};
  const system = textOf(messages.find((m) => m.role === 'system')?.content);
  const offersShell = (body?.tools ?? []).some((t) => (t.function?.name ?? t.name) === SHELL_TOOL);
  if (/memory extraction subagent/i.test(system)) return { step: 'aux', text: AUX_TEXT };
  if (last.role === 'tool') {
    const output = textOf(last.content);
    const failed = /Exit Code: [1-9]/.test(output) || /nonexistent-stub-dir/.test(output);
    return failed ? { step: 'final_fail', text: FAILED_TEXT } : { step: 'final', text: FINAL_TEXT };
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const said = textOf(lastUser?.content);
  if (last.role === 'user' && said.includes('NOTOOL')) return { step: 'text', text: NOTOOL_TEXT };
  if (last.role === 'user' && said.includes('FAILTOOL') && offersShell)
    return { step: 'failtool', text: INTRO_TEXT, tool: SHELL_TOOL,
      args: { command: 'ls /nonexistent-stub-dir', description: 'List a missing directory', is_background: false } };
  if (last.role === 'user' && said.includes('hello-from-tool') && offersShell)
    return { step: 'tool', reasoning: REASONING, text: INTRO_TEXT, tool: SHELL_TOOL,
      args: { command: 'echo hello-from-tool', description: 'Print hello-from-tool', is_background: false } };
  return { step: 'aux', text: AUX_TEXT };
}

/**
 * Starts the stub. Returns {url (base URL ending in /v1), requests, close()}.
 * requests: one entry per request: {n, method, path, auth, ua, body, reply}.
 */
export async function startChatStub({ apiKey }) {
  const stub = { url: '', requests: [] };
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { raw += chunk; });
    req.on('end', () => {
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
      const auth = req.headers.authorization ?? '';
      const entry = { n: ++calls, method: req.method, path: req.url, auth, ua: req.headers['user-agent'] ?? '', body, reply: null };
      stub.requests.push(entry);
      if (auth !== `Bearer ${apiKey}`) {
        entry.reply = { step: 'auth_error_401' };
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: {
          message: 'Incorrect API key provided: sk-stub-***. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
        return;
      }
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        entry.reply = { step: 'not_found' };
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'invalid_request_error' } }));
        return;
      }
      const reply = decide(body);
      entry.reply = reply;
      streamReply(res, body, reply, calls);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${server.address().port}/v1`;
  stub.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return stub;
}

function streamReply(res, body, reply, n) {
  const id = `chatcmpl-stub-${String(n).padStart(4, '0')}`;
  const model = body?.model ?? 'stub-model';
  const created = Math.floor(Date.now() / 1000);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta, finish = null, extra = {}) => res.write(`data: ${JSON.stringify({
    id, object: 'chat.completion.chunk', created, model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra })}\n\n`);
  chunk({ role: 'assistant', content: '' });
  if (reply.reasoning) for (const part of split3(reply.reasoning)) chunk({ reasoning_content: part });
  if (reply.text) for (const part of split3(reply.text)) chunk({ content: part });
  if (reply.tool) {
    const args = JSON.stringify(reply.args);
    const callId = `call_stub_${String(n).padStart(4, '0')}`;
    chunk({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: reply.tool, arguments: '' } }] });
    for (const part of split3(args)) chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] });
  }
  chunk({}, reply.tool ? 'tool_calls' : 'stop');
  if (body?.stream_options?.include_usage) {
    // Fake counts, as the capture's stub: about the request's JSON length / 4.
    const prompt = Math.ceil(JSON.stringify(body).length / 4);
    const completion = Math.ceil(((reply.text ?? '').length + JSON.stringify(reply.args ?? '').length) / 4);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}
