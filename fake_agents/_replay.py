"""Turns for the fake agent CLIs: a real transcript from transcripts/<cli>/
with the session id and the final reply swapped in, or (cursor-agent, which
has no capture) a stream built from its public docs. Stdlib only.
"""

import json
import os

TRANSCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transcripts")


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
