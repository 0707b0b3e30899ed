// Workspace bootstrap through the official SDK: an agent created with
// client.beta.agents.create whose workspace.git names a repository served by
// `git daemon` on 127.0.0.1 sees the repository's files in its first turn;
// the clone is a command_execution item of that turn; the next turn reuses
// the checkout; a repository that cannot be reached fails the turn with a
// clear message and the session takes the next input. The token is the
// secret canary, so run.sh's scan proves it was redacted everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { client, limit, uniquePrompt } from '../lib/harness.mjs';

const c = client();
const beta = c.beta.agents;
const work = process.env.ORACLE_WORK_DIR;
const canary = process.env.ORACLE_CANARY_VALUE;
const tag = Math.random().toString(36).slice(2, 10);
const gitRoot = path.join(work, `git-${tag}`);
let daemon;
let port;

const git = (cwd, ...args) => execFileSync('git',
  ['-c', 'user.name=oracle', '-c', 'user.email=oracle@example.com', '-c', 'init.defaultBranch=main', ...args],
  { cwd, env: { PATH: process.env.PATH, HOME: gitRoot, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'pipe' });

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return p;
}

async function reachable(p) {
  return new Promise((resolve) => {
    const socket = net.connect(p, '127.0.0.1', () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

before(async () => {
  const src = path.join(gitRoot, 'src');
  fs.mkdirSync(src, { recursive: true });
  git(src, 'init', '-q');
  fs.writeFileSync(path.join(src, 'README.md'), 'oracle repository\n');
  fs.mkdirSync(path.join(src, 'lib'));
  fs.writeFileSync(path.join(src, 'lib', 'tool.js'), 'export {};\n');
  git(src, 'add', '.');
  git(src, 'commit', '-qm', 'first');
  git(gitRoot, 'clone', '-q', '--bare', 'src', 'repo.git');
  port = await freePort();
  daemon = spawn('git', ['daemon', '--listen=127.0.0.1', `--port=${port}`, '--export-all', '--reuseaddr',
    `--base-path=${gitRoot}`, gitRoot], { stdio: 'ignore', env: { PATH: process.env.PATH, HOME: gitRoot } });
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(await reachable(port), 'git daemon did not start');
});

after(() => daemon?.kill('SIGTERM'));

// One turn on the raw event stream: every event until the session is idle again.
async function turn(sessionId, text) {
  const events = await beta.sessions.events.stream(sessionId, limit(60_000));
  await beta.sessions.events.create(sessionId, {
    events: [{ type: 'agent.session.input.message', input: [{ role: 'user', content: [{ type: 'input_text', text }] }] }],
  }, limit());
  const seen = [];
  for await (const e of events) {
    seen.push(e);
    if (e.type === 'agent.session.idle') break;
  }
  return seen;
}

const lister = (workspace, url) => beta.create({
  model: 'command',
  // Extensions of the definition schema: a command that lists its working directory.
  runtime: 'command',
  command: { argv: ['sh', '-c', 'ls -A'], parser: 'text' },
  workspace: { path: workspace, git: { url, token: canary } },
}, limit());

test('workspace.git: the first turn sees the clone, the clone is an item, the next turn reuses it', { timeout: 120_000 }, async () => {
  const workspace = path.join(work, `ws-${tag}`);
  const url = `git://127.0.0.1:${port}/repo.git`;
  const agent = await lister(workspace, url);
  assert.equal(agent.workspace.git.url, url);
  assert.equal(agent.workspace.git.token, '***');
  const s = await beta.sessions.create({ agent_id: agent.id, environment: { type: 'none' } }, limit());

  const first = await turn(s.id, uniquePrompt('workspace'));
  const done = first.filter((e) => e.type === 'agent.session.turn.item.done').map((e) => e.item);
  const clone = done.find((i) => i.type === 'command_execution');
  assert.ok(clone, `no command_execution item: ${JSON.stringify(done)}`);
  assert.equal(clone.command, `git clone --depth=1 --single-branch -- ${url} ${workspace}`);
  assert.equal(clone.exit_code, 0);
  assert.equal(clone.status, 'completed');
  const answer = done.filter((i) => i.type === 'message').at(-1).content[0].text;
  for (const name of ['.git', 'README.md', 'lib']) assert.match(answer, new RegExp(`^${name.replace('.', '\\.')}$`, 'm'));
  assert.ok(first.some((e) => e.type === 'agent.session.turn.completed'));

  // The checkout is git's own: the token is in no file of it.
  assert.equal(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8'), 'oracle repository\n');
  assert.ok(!fs.readFileSync(path.join(workspace, '.git', 'config'), 'utf8').includes(canary));

  const second = await turn(s.id, uniquePrompt('workspace again'));
  const again = second.filter((e) => e.type === 'agent.session.turn.item.done').map((e) => e.item);
  assert.ok(!again.some((i) => i.type === 'command_execution'), 'the second turn cloned again');
  assert.ok(second.some((e) => e.type === 'agent.session.turn.completed'));
  await beta.delete(agent.id, limit());
});

test('workspace.git: an unreachable repository fails the turn clearly; the session stays usable', { timeout: 120_000 }, async () => {
  const workspace = path.join(work, `ws-bad-${tag}`);
  const closed = await freePort();
  const url = `git://127.0.0.1:${closed}/missing.git`;
  const agent = await lister(workspace, url);
  const s = await beta.sessions.create({ agent_id: agent.id, environment: { type: 'none' } }, limit());
  for (let n = 0; n < 2; n++) {
    const seen = await turn(s.id, uniquePrompt('unreachable'));
    const failed = seen.find((e) => e.type === 'agent.session.turn.failed');
    assert.ok(failed, `the turn did not fail: ${seen.map((e) => e.type).join(' ')}`);
    assert.match(failed.turn.error.message, /^workspace bootstrap: cloning git:\/\/127\.0\.0\.1:\d+\/missing\.git into .* failed: git clone exited with 128/);
    assert.equal(fs.readdirSync(workspace).length, 0, 'a failed clone left files behind');
  }
  const again = await beta.sessions.retrieve(s.id, limit());
  assert.notEqual(again.status, 'in_progress');
  await beta.delete(agent.id, limit());
});
