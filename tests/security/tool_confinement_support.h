// Helpers of tool_confinement_test.cpp: a temporary root, git repositories
// made with the real git, files planted directly or through the server's
// own routes (POST /upload, POST /env), and the /shell calls of the launcher
// attacks.
#pragma once

#include <Poco/Base64Encoder.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "security/security_support.h"

namespace abx::testing::security {

/** A directory of the test's own (removed at the end), for what lies outside the base dir. */
struct TempRoot {
  std::string path;
  TempRoot() {
    char tmpl[] = "/tmp/abx-sec-tools-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
};

/** Runs @p script with bash -e in @p dir (git identity set); fails the test on error. */
inline void shell(const std::string& dir, const std::string& script) {
  sdk::SpawnOptions spawn;
  spawn.argv = {"bash", "-ec", script};
  spawn.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
  for (const char* v : {"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
                        "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
                        "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"})
    spawn.env.emplace_back(v);
  spawn.cwd = dir;
  spawn.stdin_pipe = false;
  auto done = sdk::Subprocess::run(spawn);
  ASSERT_TRUE(done) << done.status().message();
  ASSERT_EQ(done->exit_code, 0) << script << "\n" << done->out << done->err;
}

/** A repository at @p dir (created) with what @p setup makes, all committed. */
inline void makeRepo(const std::string& dir, const std::string& setup) {
  std::filesystem::create_directories(dir);
  shell(dir, "git init -q -b main . && " + setup + " && git add -A && git commit -qm init");
}

inline void executable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), 0755);
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename());
  return names;
}

/** Every plugin, dev_tools on, the PTY service on an ephemeral port, @p env added. */
inline ServerOptions devTools(const std::string& policy,
                              std::map<std::string, std::string> env = {}) {
  return allPlugins(policy + "groups: {dev_tools: true}\n", std::move(env), {"--pty-port", "0"});
}

/** POST /upload of @p text to @p path (relative to the base dir); the status. */
inline int upload(const ServerProcess& server, const std::string& path, const std::string& text) {
  std::ostringstream encoded;
  Poco::Base64Encoder encoder(encoded);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  auto r = http(server.port(), "POST", "/upload",
                "{\"path\":" + sdk::jsonQuote(path) +
                    ",\"content_base64\":" + sdk::jsonQuote(encoded.str()) + "}");
  EXPECT_EQ(r.status, 200) << r.body;
  return r.status;
}

/** POST /env {"vars": @p vars}; the status. */
inline int setEnv(const ServerProcess& server, const std::map<std::string, std::string>& vars) {
  std::string body = "{\"vars\":{";
  for (const auto& [name, value] : vars)
    body += (body.size() > 9 ? "," : "") + sdk::jsonQuote(name) + ":" + sdk::jsonQuote(value);
  return http(server.port(), "POST", "/env", body + "}}").status;
}

inline std::string argvJson(const std::vector<std::string>& argv) {
  std::string out = "{\"command\":[";
  for (std::size_t i = 0; i < argv.size(); ++i) out += (i ? "," : "") + sdk::jsonQuote(argv[i]);
  return out + "],\"timeout\":10}";
}

/** POST /shell with @p argv; its stdout (the test fails unless it ran and exited 0). */
inline std::string runShell(const ServerProcess& server, const std::vector<std::string>& argv) {
  auto r = http(server.port(), "POST", "/shell", argvJson(argv));
  EXPECT_EQ(r.status, 200) << argvJson(argv) << " " << r.body;
  if (r.status != 200) return {};
  auto body = parseObject(r.body);
  EXPECT_EQ(body->getValue<int>("exit_code"), 0) << r.body;
  return body->getValue<std::string>("stdout");
}

/**
 * @p argv on @p route is refused before anything runs: 403
 * command_not_allowed, naming @p program (when given) or saying why it
 * cannot be judged.
 */
inline void expectRefused(const ServerProcess& server, const std::string& route,
                          const std::vector<std::string>& argv, const std::string& program) {
  auto r = http(server.port(), "POST", route, argvJson(argv));
  EXPECT_EQ(r.status, 403) << argvJson(argv) << " " << r.body;
  EXPECT_THAT(r.body, ::testing::HasSubstr("command_not_allowed")) << argvJson(argv);
  EXPECT_THAT(r.body, ::testing::Not(::testing::HasSubstr("PWNED\\n"))) << argvJson(argv);
  if (!program.empty() && r.body.find("cannot be judged") == std::string::npos) {
    EXPECT_THAT(r.body, ::testing::HasSubstr(program)) << argvJson(argv);
  }
}

}  // namespace abx::testing::security
