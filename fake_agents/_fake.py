"""Shared code of the fake agent CLIs (codex, claude, qwen, cursor-agent,
fake-agent): parse the real CLI's flags, record the call, keep a per-session
turn counter, then print the turn (_replay.py) or act out a failure mode.

Stdlib only. See README.md in this folder for the behaviour and env vars.
"""

import json
import os
import signal
import sys
import time
import uuid

from _replay import dumps, split_even, turn_lines

VERSIONS = {
    "codex": "codex-cli 0.169.0",
    "claude": "2.1.328 (Claude Code)",
    "qwen": "0.24.4",
    "cursor-agent": "2025.11.25-fake (cursor-agent stand-in)",
    "fake-agent": "fake-agent 1.0.0",
}

# Options that take a value, per CLI (from the transcripts' argv.txt and the
# CLIs' --help); everything else starting with '-' is a flag.
VALUE_OPTIONS = {
    "codex": {"-c", "--config", "--disable", "--enable", "-m", "--model", "-s", "--sandbox",
              "-C", "--cd", "-p", "--profile", "-i", "--image", "--color",
              "--output-last-message", "-o", "--output-schema", "--add-dir"},
    "claude": {"--output-format", "--input-format", "--permission-mode", "--resume", "-r",
               "--model", "--append-system-prompt", "--system-prompt", "--mcp-config",
               "--max-turns", "--allowedTools", "--allowed-tools", "--disallowedTools",
               "--disallowed-tools", "--settings", "--add-dir", "--fallback-model",
               "--session-id", "--max-budget-usd"},
    "qwen": {"--auth-type", "--output-format", "--input-format", "--approval-mode", "--resume",
             "-p", "--prompt", "-m", "--model", "--append-system-prompt", "--system-prompt",
             "--max-session-turns", "--include-directories"},
    "cursor-agent": {"--output-format", "--resume", "--model", "-m", "--api-key", "-a"},
    "fake-agent": {"--format", "--resume"},
}


class Call:
    """What one invocation asked for."""

    def __init__(self, cli):
        self.cli = cli
        self.flags = set()
        self.options = {}
        self.positionals = []
        self.resume_id = None
        self.prompt = ""
        self.format = {"codex": "jsonl-codex", "claude": "jsonl-claude", "qwen": "jsonl-claude",
                       "cursor-agent": "jsonl-cursor", "fake-agent": "text"}[cli]


def parse_args(cli, argv):
    call = Call(cli)
    values = VALUE_OPTIONS[cli]
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
            call.options[name] = value
        elif arg in values and i + 1 < len(argv):
            call.options[arg] = argv[i + 1]
            i += 1
        elif arg.startswith("-") and arg != "-":
            call.flags.add(arg)
        else:
            call.positionals.append(arg)
        i += 1
    if cli == "codex":
        # codex exec [resume <thread_id>] [-|PROMPT]
        words = list(call.positionals)
        if words[:1] == ["exec"]:
            words = words[1:]
        if words[:1] == ["resume"]:
            words = words[1:]
            if words and words[0] != "-":
                call.resume_id = words.pop(0)
        call.positionals = words
    else:
        call.resume_id = call.options.get("--resume") or call.options.get("-r")
    if cli == "fake-agent":
        call.format = call.options.get("--format", "text")
    return call


def read_prompt(call):
    if call.cli == "cursor-agent":  # cannot read stdin, like the real CLI
        return call.positionals[-1] if call.positionals else ""
    if call.cli == "qwen" and ("-p" in call.options or "--prompt" in call.options):
        return call.options.get("-p") or call.options.get("--prompt")
    inline = [p for p in call.positionals if p != "-"]
    if inline:
        return inline[-1]
    return sys.stdin.read()


def record(call):
    path = os.environ.get("FAKE_AGENT_RECORD")
    if not path:
        return
    entry = {"cli": call.cli, "argv": sys.argv, "env": dict(os.environ), "stdin": call.prompt,
             "cwd": os.getcwd(), "pid": os.getpid()}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def state_dir():
    default = os.path.join(os.environ.get("HOME", "/tmp"), ".fake-agent")
    path = os.environ.get("FAKE_AGENT_STATE_DIR", default)
    os.makedirs(path, exist_ok=True)
    return path


def next_turn(call):
    """(session_id, n) for this turn; None when the resume id is unknown."""
    if call.resume_id:
        session = call.resume_id
        counter = os.path.join(state_dir(), session + ".turns")
        if not os.path.exists(counter):
            return None
        with open(counter, encoding="utf-8") as f:
            n = int(f.read().strip() or "0") + 1
    else:
        session = str(uuid.uuid4())
        counter = os.path.join(state_dir(), session + ".turns")
        n = 1
    with open(counter, "w", encoding="utf-8") as f:
        f.write(str(n))
    return session, n


def last_line(prompt):
    lines = [line.strip() for line in prompt.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def reply_text(call, n):
    if "FAKE_REPLY" in os.environ:
        return os.environ["FAKE_REPLY"]
    return "turn %d: %s" % (n, last_line(call.prompt))


# ---------------------------------------------------------------- output

def emit(text, delay=0.0):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    if delay:
        time.sleep(delay)


# ---------------------------------------------------------------- modes

def flood(call, session, reply):
    count = int(os.environ.get("FAKE_FLOOD_EVENTS", "100000"))
    lines, _, _ = turn_lines(call, "normal", session, reply)
    batch = []

    def push(line):
        batch.append(line)
        if len(batch) >= 2000:
            sys.stdout.write("\n".join(batch) + "\n")
            batch.clear()

    if call.format == "text":
        for i in range(count):
            push("line %d" % i)
    elif call.format == "jsonl-codex":
        push(lines[0])
        for i in range(count):
            push(dumps({"type": "item.completed",
                        "item": {"id": "item_%d" % (i + 100), "type": "agent_message",
                                 "text": "tok %d" % i}}))
        for line in lines[1:]:
            push(line)
    else:
        push(lines[0])
        msg = {"type": "stream_event", "session_id": session, "parent_tool_use_id": None}
        push(dumps(dict(msg, event={"type": "message_start", "message": {
            "id": "msg_flood", "type": "message", "role": "assistant", "content": []}})))
        push(dumps(dict(msg, event={"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}})))
        prefix = dumps(dict(msg, event={"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": "@@"}}))
        head, tail = prefix.split("@@")
        for i in range(count):
            push("%stok%d %s" % (head, i, tail))
        push(dumps(dict(msg, event={"type": "content_block_stop", "index": 0})))
        push(dumps(dict(msg, event={"type": "message_stop"})))
        push(dumps({"type": "result", "subtype": "success", "is_error": False, "result": reply,
                    "session_id": session, "usage": {"input_tokens": 1, "output_tokens": count}}))
    sys.stdout.write("\n".join(batch) + ("\n" if batch else ""))
    sys.stdout.flush()
    return 0


def huge_line(call):
    size = int(os.environ.get("FAKE_HUGE_LINE_BYTES", str(5 * 1024 * 1024)))
    if call.format == "text":
        sys.stdout.write("x" * size + "\n")
    else:
        # An event type the parsers ignore, so the turn still parses normally.
        kind = "fake.padding" if call.format == "jsonl-codex" else "fake_padding"
        padding = "x" * max(0, size - 40)
        sys.stdout.write(dumps({"type": kind, "padding": padding}) + "\n")
    sys.stdout.flush()


def leave_daemon():
    """A grandchild in its own session that keeps stdout (and stderr) open
    for FAKE_DAEMON_S seconds: what a CLI that starts a background server
    leaves behind."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(float(os.environ.get("FAKE_DAEMON_S", "60")))
        os._exit(0)
    os.waitpid(pid, 0)


def main(cli):
    argv = sys.argv[1:]
    if "--version" in argv or "-V" in argv:
        print(VERSIONS[cli])
        return 0
    call = parse_args(cli, argv)
    call.prompt = read_prompt(call)
    record(call)
    mode = os.environ.get("FAKE_MODE", "normal")
    if mode == "hang" and os.environ.get("FAKE_IGNORE_SIGINT") == "1":
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    turn = next_turn(call)
    if turn is None:
        sys.stderr.write("Error: No conversation found with session ID: %s\n" % call.resume_id)
        return 1
    session, n = turn
    reply = reply_text(call, n)
    trigger = os.environ.get("FAKE_MODE_IF_PROMPT")
    if trigger is not None and trigger not in last_line(call.prompt):
        mode = "normal"

    if mode == "flood":
        return flood(call, session, reply)
    if mode == "huge_line":
        huge_line(call)
        mode = "normal"
    if mode == "daemon":
        leave_daemon()
        mode = "normal"

    lines, stderr, rc = turn_lines(call, mode, session, reply)
    if mode == "hang":
        if lines and call.format != "text":
            emit(lines[0])
        while True:
            time.sleep(3600)
    if mode == "burn":
        # Spins on the CPU until something stops it (an RLIMIT_CPU test).
        if lines and call.format != "text":
            emit(lines[0])
        while True:
            pass
    if mode == "close_stdout":
        if lines and call.format != "text":
            emit(lines[0])
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
        return 0
    if mode == "crash":
        for line in lines[: max(1, len(lines) // 2)]:
            emit(line)
        signal.signal(signal.SIGSEGV, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGSEGV)
    delay = int(os.environ.get("FAKE_DELAY_MS", "200")) / 1000.0 if mode == "slow" else 0.0
    for line in lines:
        emit(line, delay)
    if stderr:
        sys.stderr.write(stderr)
        sys.stderr.flush()
    return rc


def run(cli):
    try:
        sys.exit(main(cli))
    except BrokenPipeError:
        sys.exit(141)
    except KeyboardInterrupt:  # SIGINT from the kill ladder: quiet, like a CLI
        sys.exit(130)
