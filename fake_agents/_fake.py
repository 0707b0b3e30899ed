"""Shared code of the fake agent CLIs (codex, claude, qwen, cursor-agent,
fake-agent): parse the real CLI's flags, record the call, keep a per-session
turn counter, and replay a real transcript (or act out a failure mode).

Stdlib only. See README.md in this folder for the behaviour and env vars.
"""

import json
import os
import signal
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
TRANSCRIPTS = os.path.join(HERE, "transcripts")

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


def reply_text(call, n):
    if "FAKE_REPLY" in os.environ:
        return os.environ["FAKE_REPLY"]
    lines = [line.strip() for line in call.prompt.splitlines() if line.strip()]
    return "turn %d: %s" % (n, lines[-1] if lines else "")


# ---------------------------------------------------------------- output

def emit(text, delay=0.0):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    if delay:
        time.sleep(delay)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def split_even(text, parts):
    if parts <= 1:
        return [text]
    size = -(-len(text) // parts) if text else 0
    return [text[i * size:(i + 1) * size] for i in range(parts)]


def transcript_dir(call):
    if call.format == "jsonl-codex":
        return os.path.join(TRANSCRIPTS, "codex")
    if call.format == "jsonl-claude":
        return os.path.join(TRANSCRIPTS, "qwen" if call.cli == "qwen" else "claude")
    return None


def transcript_name(call, mode):
    if mode == "auth_error":
        return "auth-error"
    scenario = os.environ.get("FAKE_SCENARIO", "tool")
    if scenario == "notool":
        return "turn3-resume-notool"
    if scenario == "tool_fail":
        return "tool-fail"
    return "turn2-resume" if call.resume_id else "turn1"


def load_transcript(call, name):
    folder = transcript_dir(call)
    with open(os.path.join(folder, name + ".jsonl"), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    with open(os.path.join(folder, name + ".stderr.txt"), encoding="utf-8") as f:
        stderr = f.read()
    with open(os.path.join(folder, name + ".rc"), encoding="utf-8") as f:
        rc = int(f.read().strip())
    return lines, stderr, rc


def original_session_id(first_line):
    obj = json.loads(first_line)
    return obj.get("thread_id") or obj.get("session_id") or ""


def rewrite_codex(lines, reply):
    """The last agent_message carries the reply."""
    last = max((i for i, line in enumerate(lines) if '"agent_message"' in line), default=None)
    if last is None or reply is None:
        return lines
    obj = json.loads(lines[last])
    obj["item"]["text"] = reply
    lines[last] = dumps(obj)
    return lines


def rewrite_stream_json(lines, reply):
    """The last text block (its deltas, assistant line and the result) carries the reply."""
    if reply is None:
        return lines
    objs = [json.loads(line) for line in lines]
    start = max((i for i, o in enumerate(objs)
                 if o.get("type") == "stream_event"
                 and o["event"].get("type") == "content_block_start"
                 and o["event"].get("content_block", {}).get("type") == "text"), default=None)
    deltas = []
    if start is not None:
        for i in range(start + 1, len(objs)):
            ev = objs[i].get("event", {}) if objs[i].get("type") == "stream_event" else {}
            if ev.get("type") == "content_block_stop":
                break
            if ev.get("type") == "content_block_delta" and ev["delta"].get("type") == "text_delta":
                deltas.append(i)
    for i, piece in zip(deltas, split_even(reply, len(deltas))):
        objs[i]["event"]["delta"]["text"] = piece
    last_text = max((i for i, o in enumerate(objs) if o.get("type") == "assistant"
                     and any(b.get("type") == "text" for b in o["message"].get("content", []))),
                    default=None)
    if last_text is not None:
        for block in objs[last_text]["message"]["content"]:
            if block.get("type") == "text":
                block["text"] = reply
    for o in objs:
        if o.get("type") == "result" and "result" in o:
            o["result"] = reply
    changed = set(deltas) | {i for i, o in enumerate(objs) if o.get("type") == "result"}
    if last_text is not None:
        changed.add(last_text)
    return [dumps(o) if i in changed else line for i, (o, line) in enumerate(zip(objs, lines))]


def cursor_lines(call, session, reply):
    """cursor-agent has no captured transcript: a stream shaped after its docs."""
    base = {"session_id": session}
    out = [dict(type="system", subtype="init", apiKeySource="env", cwd=os.getcwd(),
                model=call.options.get("--model", "auto"), permissionMode="default", **base),
           dict(type="user", message={"role": "user",
                                      "content": [{"type": "text", "text": call.prompt}]}, **base)]
    call_id = "call_fake_0001"
    args = {"command": "echo hello-from-tool"}
    out.append(dict(type="tool_call", subtype="started", call_id=call_id,
                    tool_call={"shellToolCall": {"args": args}}, **base))
    result = {"success": {"stdout": "hello-from-tool\n", "stderr": "", "exitCode": 0}}
    out.append(dict(type="tool_call", subtype="completed", call_id=call_id,
                    tool_call={"shellToolCall": {"args": args, "result": result}}, **base))
    if "--stream-partial-output" in call.flags:
        for piece in split_even(reply, 3):
            out.append(dict(type="assistant", message={
                "role": "assistant", "content": [{"type": "text", "text": piece}]}, **base))
    out.append(dict(type="assistant", message={
        "role": "assistant", "content": [{"type": "text", "text": reply}]}, **base))
    out.append(dict(type="result", subtype="success", is_error=False, duration_ms=12,
                    duration_api_ms=10, result=reply, request_id="req_fake", **base))
    return [dumps(o) for o in out]


def turn_lines(call, mode, session, reply):
    """(stdout lines, stderr text, exit code) of one replayed turn."""
    if call.format == "text":
        if mode == "auth_error":
            return [], "Error: 401 Unauthorized: invalid API key\n", 1
        return reply.split("\n"), "", 0
    if call.format == "jsonl-cursor":
        if mode == "auth_error":
            return [], "Error: Authentication required. Invalid CURSOR_API_KEY (401)\n", 1
        return cursor_lines(call, session, reply), "", 0
    lines, stderr, rc = load_transcript(call, transcript_name(call, mode))
    original = original_session_id(lines[0])
    if original:
        lines = [line.replace(original, session) for line in lines]
    if mode != "auth_error":
        rewrite = rewrite_codex if call.format == "jsonl-codex" else rewrite_stream_json
        lines = rewrite(lines, reply)
    return lines, stderr, rc


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

    if mode == "flood":
        return flood(call, session, reply)
    if mode == "huge_line":
        huge_line(call)
        mode = "normal"

    lines, stderr, rc = turn_lines(call, mode, session, reply)
    if mode == "hang":
        if lines and call.format != "text":
            emit(lines[0])
        while True:
            time.sleep(3600)
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
