// Subprocess's child user (see abx/sdk/subprocess.h).
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>

#include "abx/sdk/subprocess.h"

namespace abx::sdk {
namespace {

std::mutex child_user_mutex;
std::shared_ptr<const ChildUser> child_user;
// The server's own HOME/USER/LOGNAME when the child user was set: entries
// still carrying them are the server's, not a plugin's choice.
std::string server_home, server_user;

std::shared_ptr<const ChildUser> current() {
  std::lock_guard lock(child_user_mutex);
  return child_user;
}

std::string envOr(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

/** Replaces NAME=<server's value> (or adds NAME) with NAME=@p value. */
void adopt(std::vector<std::string>& env, std::string_view name, const std::string& server_value,
           const std::string& value) {
  for (auto& entry : env) {
    if (entry.size() <= name.size() || entry.compare(0, name.size(), name) != 0 ||
        entry[name.size()] != '=')
      continue;
    if (entry.compare(name.size() + 1, std::string::npos, server_value) == 0)
      entry = std::string(name) + "=" + value;
    return;
  }
  env.push_back(std::string(name) + "=" + value);
}

}  // namespace

Status Subprocess::setChildUser(std::string_view name) {
  std::string user_name(name);
  if (user_name.empty()) {
    std::lock_guard lock(child_user_mutex);
    child_user.reset();
    return Status::ok();
  }
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (::getpwnam_r(user_name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found)
    return Status::error("child user '" + user_name + "' does not exist", "ValueError");
  if (pw.pw_uid == 0)
    return Status::error("child user '" + user_name + "' is root; name an unprivileged user",
                         "ValueError");
  if (::geteuid() != 0)
    return Status::error("a child user needs a server running as root", "PermissionError");
  auto user = std::make_shared<ChildUser>();
  user->name = user_name;
  user->uid = pw.pw_uid;
  user->gid = pw.pw_gid;
  user->home = pw.pw_dir ? pw.pw_dir : "/";
  int count = 64;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  if (::getgrouplist(user_name.c_str(), pw.pw_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<std::size_t>(count));
    ::getgrouplist(user_name.c_str(), pw.pw_gid, groups.data(), &count);
  }
  groups.resize(static_cast<std::size_t>(std::max(count, 0)));
  user->groups = std::move(groups);
  std::lock_guard lock(child_user_mutex);
  server_home = envOr("HOME", "/root");
  server_user = envOr("USER", "root");
  child_user = std::move(user);
  return Status::ok();
}

std::optional<ChildUser> Subprocess::childUser() {
  auto user = current();
  if (!user) return std::nullopt;
  return *user;
}

std::vector<std::string> Subprocess::childUserEnvironment(std::vector<std::string> env) {
  auto user = current();
  if (!user) return env;
  adopt(env, "HOME", server_home, user->home);
  adopt(env, "USER", server_user, user->name);
  adopt(env, "LOGNAME", server_user, user->name);
  return env;
}

Status Subprocess::giveToChildUser(const std::string& path) {
  auto user = current();
  if (!user) return Status::ok();
  if (::lchown(path.c_str(), user->uid, user->gid) != 0)
    return Status::error("chown " + path + ": " + std::generic_category().message(errno),
                         "OSError");
  return Status::ok();
}

}  // namespace abx::sdk
