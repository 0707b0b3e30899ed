// The body's members may come in any order. When "content_base64" comes
// before "path", its bytes are staged in the staging dir (the server's
// state dir) and moved next to the target once the path is known and
// allowed: renamed on the same filesystem, copied otherwise. Either way the
// target appears by one rename of a complete, fsynced file.
#include "upload_routes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "atomic_file.h"
#include "base64_stream.h"
#include "file_rules.h"
#include "json_body_scanner.h"

namespace abx::plugins::files {
namespace {

constexpr std::size_t kReadChunk = 64u << 10;
constexpr char kContent[] = "content_base64";

/** The staging directory, created 0700 on first use; else the system temp dir. */
Fd openStagingDir(const std::string& preferred) {
  if (!preferred.empty()) {
    ::mkdir(parentPath(preferred).c_str(), 0700);
    ::mkdir(preferred.c_str(), 0700);
    int fd = ::open(preferred.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) return Fd(fd);
  }
  std::error_code ec;  // the temporary directory: TMPDIR, else /tmp
  auto tmp = std::filesystem::temp_directory_path(ec);
  return Fd(::open(ec ? "/tmp" : tmp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

/** One upload request being read. */
class UploadSession {
 public:
  UploadSession(const FilesContext& ctx, const sdk::Request& request)
      : ctx_(ctx), request_(request), limit_(byteLimit(request, ctx.upload_limit)) {}

  sdk::Response run() {
    JsonBodyScanner scanner({kContent}, [this](std::string_view, std::string_view bytes,
                                               bool done) { return onContent(bytes, done); });
    scanner_ = &scanner;
    std::vector<char> buf(kReadChunk);
    bool scanning = true;
    sdk::Status scanned;  // ok until the body is not the JSON it should be
    while (sdk::BodyReader* reader = request_.body_reader) {
      std::size_t n = reader->read(buf.data(), buf.size());
      if (n == 0) break;
      if (!scanning) continue;  // drain, so the client reads our answer
      if (auto s = scanner.feed(std::string_view(buf.data(), n)); !s) {
        scanning = false;
        scanned = s;
      }
    }
    if (error_) return std::move(*error_);
    if (scanned) scanned = scanner.finish();
    if (!scanned) return badRequest(scanned.message());

    if (auto bad = requireString("path")) return std::move(*bad);
    if (auto bad = requireString(kContent)) return std::move(*bad);
    if (!target_) {
      if (auto r = prepareTarget(); r) return std::move(*r);
    }
    return commit();
  }

 private:
  struct Target {
    std::string resolved;
    std::string name;
    Fd dir;
  };

  std::optional<sdk::Response> requireString(const std::string& key) const {
    auto it = scanner_->kinds().find(key);
    if (it == scanner_->kinds().end() || it->second == sdk::JsonKind::null)
      return badRequest("Missing required field '" + key + "'");
    if (it->second != sdk::JsonKind::string)
      return badRequest("Field '" + key + "' must be a string");
    return std::nullopt;
  }

  /** Stops the scan with @p response as the answer. */
  sdk::Status stop(sdk::Response response) {
    error_ = std::move(response);
    return sdk::Status::error("stopped", "UploadStopped");
  }

  /** Guard, extension, overwrite and parent directory for the path member. */
  std::optional<sdk::Response> prepareTarget() {
    const auto& strings = scanner_->strings();
    auto it = strings.find("path");
    const std::string path = it == strings.end() ? std::string() : it->second;
    if (path.empty()) return badRequest("Missing required field 'path'");
    auto verdict = ctx_.guard->check(request_.endpoint, path, sdk::PathOp::write);
    if (!verdict.allowed) return denied(verdict);
    Target t;
    t.resolved = verdict.resolved;
    t.name = baseName(verdict.resolved);
    if (auto bad = checkExtension(request_, t.name)) return bad;
    if (auto s = makeDirectories(*ctx_.guard, request_.endpoint, parentPath(t.resolved)); !s)
      return failure(s, path);
    auto dir =
        openDirectory(*ctx_.guard, request_.endpoint, parentPath(t.resolved), sdk::PathOp::read);
    if (!dir) return failure(dir.status(), path);
    t.dir = std::move(dir).value();
    struct stat st;
    if (::fstatat(t.dir.get(), t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(st.st_mode))
        return sdk::Response::error(400, "Is a directory: " + path, "IsADirectoryError");
      if (!overwriteAllowed(request_)) return fileExists(path);
    }
    target_ = std::move(t);
    return std::nullopt;
  }

  /** Where decoded bytes go: a temp file next to the target, or staged. */
  sdk::Status openSink() {
    bool path_known = scanner_->strings().count("path") != 0;
    auto kind = scanner_->kinds().find("path");
    if (kind != scanner_->kinds().end() && kind->second != sdk::JsonKind::string &&
        kind->second != sdk::JsonKind::null)
      return stop(badRequest("Field 'path' must be a string"));
    if (path_known) {
      if (auto r = prepareTarget()) return stop(std::move(*r));
      auto file = AtomicFile::create(target_->dir.get());
      if (!file) return stop(failure(file.status(), target_->resolved));
      sink_.emplace(std::move(file).value());
      return sdk::Status::ok();
    }
    staging_dir_ = openStagingDir(ctx_.staging_dir);
    if (!staging_dir_) return stop(failure(osError(errno, "no staging directory"), ""));
    auto file = AtomicFile::create(staging_dir_.get());
    if (!file) return stop(failure(file.status(), "staging file"));
    sink_.emplace(std::move(file).value());
    staged_ = true;
    return sdk::Status::ok();
  }

  sdk::Status onContent(std::string_view text, bool done) {
    if (!sink_)
      if (auto s = openSink(); !s) return s;
    auto s = done ? decoder_.finish(decoded_) : decoder_.update(text, decoded_);
    if (!s) return stop(badRequest(s.message()));
    if (decoded_.size() >= kReadChunk || done) {
      if (written_ + decoded_.size() > limit_)
        return stop(tooLarge("File too large: the limit is " + std::to_string(limit_) + " bytes"));
      if (auto w = sink_->write(decoded_); !w) return stop(failure(w, "upload"));
      written_ += decoded_.size();
      decoded_.clear();
    }
    return sdk::Status::ok();
  }

  /** Copies the staged file into a new temp file in the target's directory. */
  sdk::Result<AtomicFile> copyStaged() {
    auto copy = AtomicFile::create(target_->dir.get());
    if (!copy) return copy.status();
    std::vector<char> buf(kReadChunk);
    off_t offset = 0;
    while (true) {
      ssize_t n = ::pread(sink_->fd(), buf.data(), buf.size(), offset);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return osError(errno, "reading the staged upload");
      if (n == 0) break;
      if (auto s = copy->write(std::string_view(buf.data(), static_cast<std::size_t>(n))); !s)
        return s;
      offset += n;
    }
    return copy;
  }

  sdk::Response commit() {
    bool overwrite = overwriteAllowed(request_);
    sdk::Status s;
    if (!sink_) {  // content_base64 was "" and never produced a piece: an empty file
      if (auto r = openSink(); !r) return std::move(*error_);
    }
    if (staged_) {
      s = sink_->commitInto(target_->dir.get(), target_->name, overwrite);
      if (!s && s.type() == "CrossDeviceError") {
        auto copy = copyStaged();
        if (!copy) return failure(copy.status(), target_->resolved);
        s = copy->commit(target_->name, overwrite);
      }
    } else {
      s = sink_->commit(target_->name, overwrite);
    }
    if (!s) {
      if (s.type() == "FileExistsError") return fileExists(target_->resolved);
      return failure(s, target_->resolved);
    }
    return sdk::Response::json(sdk::JsonWriter()
                                   .beginObject()
                                   .member("path", target_->resolved)
                                   .member("bytes", written_)
                                   .endObject()
                                   .take());
  }

  const FilesContext& ctx_;
  const sdk::Request& request_;
  const std::uint64_t limit_;
  JsonBodyScanner* scanner_ = nullptr;
  std::optional<sdk::Response> error_;
  std::optional<Target> target_;
  Fd staging_dir_;
  std::optional<AtomicFile> sink_;
  bool staged_ = false;
  Base64StreamDecoder decoder_;
  std::string decoded_;
  std::uint64_t written_ = 0;
};

}  // namespace

std::size_t uploadRequestCap(std::uint64_t upload_limit) {
  return static_cast<std::size_t>(base64Length(upload_limit) + (1u << 20));
}

sdk::Response upload(const FilesContext& ctx, const sdk::Request& request) {
  return UploadSession(ctx, request).run();
}

}  // namespace abx::plugins::files
