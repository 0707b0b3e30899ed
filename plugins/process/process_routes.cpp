#include "process_routes.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <variant>

#include "abx/sdk/utf8.h"
#include "process_owner.h"
#include "run_limits.h"
#include "signal_rules.h"

namespace abx::plugins::process {
namespace {

sdk::HttpError notFound(std::int64_t pid) {
  return sdk::HttpError{404, "Process " + std::to_string(pid) + " not found", "NotFoundError", {}};
}

sdk::HttpError conflict(std::string message, std::string code) {
  return sdk::HttpError{409, std::move(message), "ConflictError", std::move(code)};
}

/**
 * The managed process named by the {pid} segment, or the 400 / 404 answer.
 * Another identity's process is not found (process_owner.h), with the same answer.
 */
std::variant<std::shared_ptr<ManagedProcess>, sdk::HttpError> target(
    const ProcessContext& context, const sdk::Request& request, std::int64_t* pid_out = nullptr) {
  const std::string text(request.param("pid").value_or(""));
  auto pid = parsePid(text);
  if (!pid) return sdk::HttpError::badRequest("Invalid pid: '" + text + "' (must be an integer)");
  if (pid_out) *pid_out = *pid;
  if (*pid <= 0 || *pid > INT32_MAX) return notFound(*pid);
  auto process = context.table->find(static_cast<pid_t>(*pid));
  if (!process || !mayActOn(request.identity, process->owner())) return notFound(*pid);
  return process;
}

std::string epochText(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  std::string text(buf);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text += '0';
  return text;
}

/** ?after=: decimal digits only (no sign), within 64 bits. */
std::optional<std::uint64_t> parseOffset(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

const char* stateName(bool running) { return running ? "running" : "exited"; }

}  // namespace

void writeSnapshot(sdk::JsonWriter& w, const ProcessSnapshot& s) {
  // started_at keeps its microsecond spelling (epochText), hence raw().
  w.beginObject()
      .member("pid", s.pid)
      .member("command", s.command)
      .member("state", stateName(s.running))
      .key("started_at")
      .raw(epochText(s.started_at))
      .member("exit_code", s.exit_code)
      .endObject();
}

sdk::Response startProcess(const ProcessContext& context, const sdk::Request& request) {
  auto launch = prepareLaunch(request, context.launch);
  if (auto* refusal = std::get_if<sdk::HttpError>(&launch)) return refusal->toResponse();
  auto& ready = std::get<Launch>(launch);
  std::string command = ready.command;
  auto started = context.table->start(std::move(ready.spawn), command, request.identity.id,
                                      outputCap(request.policy, kProcessOutputBytes),
                                      sdk::policyTimeout(request.policy));
  if (auto* refusal = std::get_if<sdk::HttpError>(&started)) return refusal->toResponse();
  const auto& process = std::get<std::shared_ptr<ManagedProcess>>(started);
  sdk::JsonWriter body;
  body.beginObject().member("pid", process->pid()).member("command", command).endObject();
  return sdk::Response::json(body.take());
}

sdk::Response listProcesses(const ProcessContext& context, const sdk::Request& request) {
  sdk::JsonWriter body;
  body.beginObject().key("processes").beginArray();
  for (const auto& snapshot : context.table->list())
    if (mayActOn(request.identity, snapshot.owner)) writeSnapshot(body, snapshot);
  body.endArray().endObject();
  return sdk::Response::json(body.take());
}

sdk::Response getProcess(const ProcessContext& context, const sdk::Request& request) {
  auto found = target(context, request);
  if (auto* refusal = std::get_if<sdk::HttpError>(&found)) return refusal->toResponse();
  sdk::JsonWriter body;
  writeSnapshot(body, std::get<std::shared_ptr<ManagedProcess>>(found)->snapshot());
  return sdk::Response::json(body.take());
}

sdk::Response signalProcess(const ProcessContext& context, const sdk::Request& request) {
  const std::string text(request.param("pid").value_or(""));
  auto pid = parsePid(text);
  if (!pid)
    return sdk::HttpError::badRequest("Invalid pid: '" + text + "' (must be an integer)")
        .toResponse();
  auto sig = requestedSignal(request.json, request.policyParams());
  if (auto* refusal = std::get_if<sdk::HttpError>(&sig)) return refusal->toResponse();
  if (auto refusal = protectedPid(*pid, context.server_pid)) return refusal->toResponse();
  auto found = target(context, request);
  if (auto* refusal = std::get_if<sdk::HttpError>(&found)) return refusal->toResponse();
  const int signal = std::get<int>(sig);
  switch (std::get<std::shared_ptr<ManagedProcess>>(found)->signal(signal)) {
    case SignalOutcome::sent:
      return sdk::Response::json(sdk::JsonWriter()
                                     .beginObject()
                                     .member("pid", *pid)
                                     .member("signal", signal)
                                     .endObject()
                                     .take());
    case SignalOutcome::exited:
      return (conflict("Process " + std::to_string(*pid) + " has exited", "process_exited"))
          .toResponse();
    case SignalOutcome::failed:
      break;
  }
  return sdk::Response::error(500, "Cannot signal process " + std::to_string(*pid), "OSError");
}

sdk::Response processOutput(const ProcessContext& context, const sdk::Request& request) {
  auto found = target(context, request);
  if (auto* refusal = std::get_if<sdk::HttpError>(&found)) return refusal->toResponse();
  std::uint64_t after = 0;
  if (auto text = request.queryParam("after")) {
    auto value = parseOffset(*text);
    if (!value)
      return sdk::HttpError::badRequest("Query parameter 'after' must be a non-negative integer")
          .toResponse();
    after = *value;
  }
  OutputRead read =
      std::get<std::shared_ptr<ManagedProcess>>(found)->output(after, kOutputReadBytes);
  if (after > read.end)
    return sdk::HttpError::badRequest("Offset " + std::to_string(after) +
                                      " is beyond the end of the output (" +
                                      std::to_string(read.end) + ")")
        .toResponse();
  std::string_view bytes(read.slice.bytes);
  std::uint64_t from = read.slice.from;
  std::uint64_t dropped = read.slice.dropped;
  if (dropped > 0) {
    // The ring lost the start of a character: skip its continuation bytes.
    const std::size_t skip = sdk::leadingContinuationBytes(bytes);
    bytes.remove_prefix(skip);
    from += skip;
    dropped += skip;
  }
  // Nothing more will come only when the slice reaches the end of an exited process's output.
  const bool eof = read.eof && read.slice.next == read.end;
  // A character whose last bytes are still to come is returned whole next time.
  if (!eof) bytes = bytes.substr(0, sdk::completeUtf8Length(bytes));
  const std::uint64_t next = from + bytes.size();
  sdk::JsonWriter body(bytes.size() + 128);
  body.beginObject()
      .member("output", bytes)
      .member("next", next)
      .member("dropped", dropped)
      .member("state", stateName(read.running))
      .member("exit_code", read.exit_code)
      .member("eof", eof)
      .endObject();
  return sdk::Response::json(body.take());
}

sdk::Response processStdin(const ProcessContext& context, const sdk::Request& request) {
  std::int64_t pid = 0;
  auto found = target(context, request, &pid);
  if (auto* refusal = std::get_if<sdk::HttpError>(&found)) return refusal->toResponse();
  const auto data_kind = request.json.kind("data");
  const auto close_kind = request.json.kind("close");
  std::string data;
  if (data_kind != sdk::JsonKind::missing && data_kind != sdk::JsonKind::null) {
    if (data_kind != sdk::JsonKind::string)
      return sdk::HttpError::badRequest("Field 'data' must be a string").toResponse();
    data = *request.json.string("data");
  }
  bool close = false;
  if (close_kind != sdk::JsonKind::missing && close_kind != sdk::JsonKind::null) {
    if (close_kind != sdk::JsonKind::boolean)
      return sdk::HttpError::badRequest("Field 'close' must be a boolean").toResponse();
    close = *request.json.boolean("close");
  }
  if ((data_kind == sdk::JsonKind::missing || data_kind == sdk::JsonKind::null) && !close)
    return sdk::HttpError::badRequest("Missing required field 'data'").toResponse();
  const std::size_t size = data.size();
  switch (std::get<std::shared_ptr<ManagedProcess>>(found)->writeStdin(std::move(data), close)) {
    case StdinOutcome::accepted:
      return sdk::Response::json(
          sdk::JsonWriter().beginObject().member("written", size).endObject().take());
    case StdinOutcome::exited:
      return (conflict("Process " + std::to_string(pid) + " has exited", "process_exited"))
          .toResponse();
    case StdinOutcome::closed:
      return (conflict("stdin of process " + std::to_string(pid) + " is closed", "stdin_closed"))
          .toResponse();
    case StdinOutcome::full:
      break;
  }
  return (sdk::HttpError{429,
                         "stdin of process " + std::to_string(pid) + " has " +
                             std::to_string(kMaxPendingStdin) +
                             " bytes pending; retry when the process has read them",
                         "ResourceError",
                         {}})
      .toResponse();
}

}  // namespace abx::plugins::process
