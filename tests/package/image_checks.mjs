// The checks of one preset image against its server, started inside the
// image by image_check.sh (buildah, chroot isolation: the container shares
// this machine's network and process table, so /proc here shows its
// processes):
// - /ready answers, and /capabilities lists the groups the preset promises,
//   every one on, and no other; every plugin started; the baked policy read;
// - the server runs as uid 1000 (the image's user), below tini;
// - an orphaned grandchild of a /shell command is re-parented to the server
//   or its init, and reaped: no zombie is left;
// - agents: each real agent CLI of the image (codex, claude, qwen) runs one
//   turn against tests/realcli's model stubs here on 127.0.0.1, its shell
//   tool running inside the image; full: the same CLIs are installed;
// - browser, full: Chromium starts in the image and evaluates a script;
// - full: an MCP session at /mcp lists the shell tool and runs it in the image.
//
//   IMAGE_URL=http://127.0.0.1:PORT IMAGE_TOKEN=... node image_checks.mjs PRESET
//
// Prints one `ok`/`not ok` line per check; exits 1 when anything failed.
import fs from 'node:fs';
import { startResponsesStub } from '../realcli/lib/responses_stub.mjs';
import { startMessagesStub } from '../realcli/lib/messages_stub.mjs';
import { startChatStub } from '../realcli/lib/chat_stub.mjs';
import { startStrayTrafficSink } from '../realcli/lib/stray_traffic_sink.mjs';

const preset = process.argv[2];
const BASE = process.env.IMAGE_URL;
const TOKEN = process.env.IMAGE_TOKEN;
const CORE = ['commands', 'core', 'file_ops', 'inspector', 'process', 'system', 'terminal'];
const GROUPS = {
  minimal: CORE,
  agents: [...CORE, 'agents'],
  browser: [...CORE, 'browser'],
  full: [...CORE, 'agents', 'browser', 'dev_tools', 'mcp'],
};
const ADAPTERS = ['adapter_command', 'adapter_claude_code', 'adapter_qwen_code', 'adapter_cursor', 'adapter_codex'];
const MINIMAL = ['commands', 'system', 'process', 'terminal', 'files', 'inspector'];
const PLUGINS = {
  minimal: MINIMAL,
  agents: [...MINIMAL, 'agents', ...ADAPTERS],
  browser: [...MINIMAL, 'browser'],
  full: [...MINIMAL, 'agents', ...ADAPTERS, 'dev_tools', 'browser', 'mcp'],
};
// The CLIs the agents images carry, at tests/realcli's pins.
const PINS = JSON.parse(fs.readFileSync(new URL('../realcli/package.json', import.meta.url))).dependencies;
const RUNTIMES = [
  { runtime: 'codex', version: PINS['@openai/codex'] },
  { runtime: 'claude-code', version: PINS['@anthropic-ai/claude-code'] },
  { runtime: 'qwen-code', version: PINS['@qwen-code/qwen-code'] },
];
if (!GROUPS[preset] || !BASE || !TOKEN) {
  console.error('usage: IMAGE_URL=... IMAGE_TOKEN=... node image_checks.mjs minimal|agents|browser|full');
  process.exit(2);
}

let failed = 0;
async function check(name, fn) {
  try {
    const note = await fn();
    console.log(`ok - ${name}${note ? ` (${note})` : ''}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${name}: ${err.message}`);
  }
}
function expect(cond, message) { if (!cond) throw new Error(message); }
const sameSet = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

async function call(method, path, body, timeoutMs = 30_000) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON: the status says what happened */ }
  return { status: res.status, json, text };
}
async function shell(script) {
  const r = await call('POST', '/shell', { command: ['sh', '-c', script] });
  expect(r.status === 200 && r.json.exit_code === 0, `/shell ${script}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json.stdout;
}

// /proc/PID/stat: {comm, state, ppid}, or null once the process is gone.
function stat(pid) {
  let text;
  try { text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return null; }
  const close = text.lastIndexOf(')');
  const [state, ppid] = text.slice(close + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, close), state, ppid: Number(ppid) };
}
function uidOf(pid) {
  return Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}
const zombiesOf = (parents) => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))
  .map((p) => ({ pid: Number(p), s: stat(p) }))
  .filter(({ s }) => s && s.state === 'Z' && parents.includes(s.ppid));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server = 0, init = 0;

await check('/ready answers 200 ready', async () => {
  const r = await call('GET', '/ready');
  expect(r.status === 200 && r.json?.status === 'ready', `${r.status} ${r.text}`);
});

await check(`/capabilities: the ${preset} groups, all on, and no other`, async () => {
  const r = await call('GET', '/capabilities');
  expect(r.status === 200, `${r.status} ${r.text.slice(0, 300)}`);
  const groups = r.json.groups;
  expect(sameSet(Object.keys(groups), GROUPS[preset]),
    `groups ${Object.keys(groups).sort()} instead of ${[...GROUPS[preset]].sort()}`);
  const off = Object.entries(groups).filter(([, on]) => !on).map(([g]) => g);
  expect(off.length === 0, `groups off: ${off}`);
  const plugins = r.json.plugins.map((p) => `${p.name}:${p.state}`);
  expect(sameSet(plugins, PLUGINS[preset].map((p) => `${p}:started`)), `plugins ${plugins}`);
  expect(r.json.policy.sources.includes('file:/etc/agent-sandbox/server-policy.json'),
    `policy sources ${r.json.policy.sources}`);
  return Object.keys(groups).sort().join(', ');
});

await check('the server runs as uid 1000 below tini; /shell runs as the same user', async () => {
  const [ppid, uid] = (await shell('echo $PPID; id -u')).trim().split('\n').map(Number);
  server = ppid;
  const s = stat(server);
  expect(s && s.comm.startsWith('agent-sandbox'), `the shell's parent ${server} is ${s?.comm}`);
  expect(uid === 1000 && uidOf(server) === 1000, `id -u ${uid}, the server's uid ${uidOf(server)}`);
  init = s.ppid;
  expect(stat(init)?.comm === 'tini', `the server's parent ${init} is ${stat(init)?.comm}, not tini`);
  return `server ${server}, tini ${init}`;
});

await check('an orphaned grandchild is adopted and reaped, no zombie left', async () => {
  expect(server && init, 'no server pid (the check above failed)');
  const orphan = Number((await shell('(sleep 2 >/dev/null 2>&1 & echo $!)')).trim());
  const s = stat(orphan);
  expect(s && s.comm === 'sleep', `the orphan ${orphan} is ${s?.comm ?? 'gone already'}`);
  expect(s.ppid === server || s.ppid === init,
    `the orphan's parent is ${s.ppid} (${stat(s.ppid)?.comm}), neither the server nor tini`);
  const adopter = s.ppid === server ? 'the server' : 'tini';
  await sleep(4000);  // 2 s of sleep, then 2 s to reap it
  const after = stat(orphan);
  expect(!after || (after.state !== 'Z' && after.ppid !== s.ppid), `the orphan is left as ${after?.state}`);
  const zombies = zombiesOf([server, init]);
  expect(zombies.length === 0, `zombies: ${JSON.stringify(zombies)}`);
  return `adopted by ${adopter}`;
});

if (preset === 'agents' || preset === 'full') {
  await check('the real agent CLIs are installed at their pinned versions', async () => {
    const r = await call('GET', '/v1/agents/runtimes');
    expect(r.status === 200, `${r.status} ${r.text.slice(0, 300)}`);
    for (const { runtime, version } of RUNTIMES) {
      const found = r.json.data.find((x) => x.name === runtime);
      expect(found?.installed === true, `${runtime}: ${JSON.stringify(found)}`);
      expect((found.version ?? '').includes(version), `${runtime} version ${found.version}, want ${version}`);
    }
  });
}

if (preset === 'agents') await agentTurns();

if (preset === 'browser' || preset === 'full') {
  await check('Chromium starts in the image and evaluates a script', async () => {
    const nav = await call('POST', '/browser/navigate', { url: 'about:blank' }, 90_000);
    expect(nav.status === 200, `navigate: ${nav.status} ${nav.text.slice(0, 300)}`);
    const r = await call('POST', '/browser/evaluate', { script: 'navigator.userAgent' }, 30_000);
    expect(r.status === 200 && /HeadlessChrome/.test(r.json.result), `evaluate: ${r.status} ${r.text.slice(0, 300)}`);
    return r.json.result.match(/HeadlessChrome\/[\d.]+/)[0];
  });
}

if (preset === 'full') {
  await check('MCP at /mcp: initialize, the shell tool listed and run in the image', async () => {
    const rpc = async (message, session) => {
      const res = await fetch(`${BASE}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      expect(res.status === 200 || res.status === 202, `${message.method}: ${res.status} ${text.slice(0, 300)}`);
      return { session: res.headers.get('mcp-session-id'), json: text ? JSON.parse(text) : null };
    };
    const init = await rpc({ id: 1, method: 'initialize', params: {
      protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'image-check', version: '1' } } });
    expect(init.session && init.json.result?.serverInfo, `initialize: ${JSON.stringify(init.json)}`);
    await rpc({ method: 'notifications/initialized' }, init.session);
    const list = await rpc({ id: 2, method: 'tools/list' }, init.session);
    const names = (list.json.result?.tools ?? []).map((t) => t.name);
    expect(names.includes('shell') && names.includes('file_write'), `tools: ${names}`);
    const ran = await rpc({ id: 3, method: 'tools/call',
      params: { name: 'shell', arguments: { command: ['sh', '-c', 'echo mcp-in-image; id -u'] } } }, init.session);
    const text = (ran.json.result?.content ?? []).map((c) => c.text ?? '').join('');
    expect(!ran.json.result?.isError && /mcp-in-image/.test(text) && /1000/.test(text),
      `shell: ${JSON.stringify(ran.json).slice(0, 400)}`);
    return `${names.length} tools`;
  });
}

// One turn of each real CLI: "run echo hello-from-tool", the stub's tool
// call, the tool's output back to the stub, the stub's final text.
async function agentTurns() {
  const key = `sk-image-${Math.random().toString(36).slice(2)}`;
  const sink = await startStrayTrafficSink();
  const responses = await startResponsesStub();
  const messages = await startMessagesStub({ apiKey: key });
  const chat = await startChatStub({ apiKey: key });
  const stubs = {
    codex: { base_url: responses.url('/v1'), requests: responses.requests },
    'claude-code': { base_url: messages.url, requests: messages.requests },
    'qwen-code': { base_url: chat.url, requests: chat.requests },
  };
  const tag = Math.random().toString(36).slice(2, 8);
  for (const { runtime } of RUNTIMES) {
    await check(`one ${runtime} turn against the model stub, its shell tool run in the image`, async () => {
      const name = `image-${runtime}-${tag}`;
      const workspace = `/home/user/ws-${name}`;
      await shell(`mkdir -p ${workspace}`);
      const created = await call('POST', '/v1/agents', {
        name, runtime, model: 'stub-model', permissions: 'full_access',
        provider: { base_url: stubs[runtime].base_url, api_key: key },
        workspace: { path: workspace },
        env: {
          PATH: '/usr/local/bin:/usr/bin:/bin',
          HTTP_PROXY: sink.url, HTTPS_PROXY: sink.url, http_proxy: sink.url, https_proxy: sink.url,
          NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
        },
        limits: { turn_timeout_s: 150, idle_timeout_s: 120 },
      });
      expect(created.status === 200, `POST /v1/agents: ${created.status} ${created.text.slice(0, 300)}`);
      const before = stubs[runtime].requests.length;
      const r = await call('POST', '/v1/responses',
        { model: name, input: 'Please run the shell command: echo hello-from-tool' }, 200_000);
      expect(r.status === 200 && r.json.status === 'completed', `${r.status} ${r.text.slice(0, 600)}`);
      const tool = r.json.output.find((i) => i.type === 'mcp_call');
      expect(tool && /hello-from-tool/.test(tool.output ?? ''), `no tool call output: ${JSON.stringify(r.json.output).slice(0, 600)}`);
      const final = r.json.output.filter((i) => i.type === 'message').at(-1);
      expect(final?.content?.[0]?.text === 'All done: hello-from-tool', `final ${JSON.stringify(final)}`);
      const seen = stubs[runtime].requests.length - before;
      expect(seen >= 2, `the stub saw ${seen} request(s)`);
      return `${seen} stub requests`;
    });
  }
  await check('the CLIs contacted nothing but their stubs', async () => {
    const stray = [...sink.attempts, ...responses.stray.map((s) => `${s.method} ${s.target}`)];
    expect(stray.length === 0, stray.join('; '));
  });
  for (const s of [sink, responses, messages, chat]) await s.close();
}

console.log(failed ? `${failed} check(s) failed` : 'all checks passed');
process.exit(failed ? 1 : 0);
