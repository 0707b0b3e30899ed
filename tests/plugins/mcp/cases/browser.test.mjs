// The mcp suite's browser tools in real headless Chromium: a page this case
// serves on 127.0.0.1 is navigated, read, typed into, clicked, evaluated
// and captured through /mcp (browser.yaml; label browser).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { connect, textOf } from '../lib/client.mjs';

const page = `<!doctype html><title>mcp page</title><body><p id="p">hello browser</p>
<input id="name"><button id="go" onclick="document.title='clicked '+document.getElementById('name').value">go</button></body>`;
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end(page);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const { client } = await connect('admin');
after(async () => {
  await client.close();
  server.close();
});

const run = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${textOf(result)}`);
  return result;
};

test('navigate, content, type, click, evaluate, screenshot', { timeout: 120_000 }, async () => {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  for (const t of ['browser_navigate', 'browser_content', 'browser_click', 'browser_type',
    'browser_evaluate', 'browser_screenshot'])
    assert.ok(tools.includes(t), t);
  assert.match(textOf(await run('browser_navigate', { url })), /mcp page/);
  assert.match(textOf(await run('browser_content', { type: 'text' })), /hello browser/);
  await run('browser_type', { selector: '#name', text: 'Ada' });
  await run('browser_click', { selector: '#go' });
  assert.match(textOf(await run('browser_evaluate', { script: 'document.title' })), /clicked Ada/);
  const shot = await run('browser_screenshot', { width: 320, height: 200 });
  const image = shot.content.find((c) => c.type === 'image');
  assert.equal(image.mimeType, 'image/png');
  assert.equal(Buffer.from(image.data, 'base64').subarray(1, 4).toString(), 'PNG');
});
