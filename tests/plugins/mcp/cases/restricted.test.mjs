// The mcp suite under restricted.yaml: a group the policy turns off has no
// tools, whoever asks, and calling one of its tools is an unknown tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../lib/client.mjs';

test('the process group off: no shell or process tool, even for admin', async () => {
  const { client } = await connect('admin');
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('file_write'), names.join(' '));
  for (const gone of ['shell', 'process_start', 'process_list', 'code_run', 'git_status'])
    assert.ok(!names.includes(gone), `${gone} is offered: ${names}`);
  await assert.rejects(client.callTool({ name: 'shell', arguments: { command: 'true' } }),
    (e) => e.code === -32602);
  await client.close();
});
