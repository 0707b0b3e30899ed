#include "cli/cli.h"

#include <sys/prctl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/version.h"
#include "cli/cli_parts.h"
#include "cli/health_probe.h"
#include "core/core_endpoints.h"
#include "core/policy_decision.h"
#include "loader/manifest.h"
#include "loader/plugin_loader.h"
#include "pipeline/origin_policy.h"
#include "server/server.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

struct Command {
  const char* name;
  const char* usage;
  const char* help;
  std::vector<std::string> options;  // take a value
  std::vector<std::string> flags;    // take none
};

// The variables serve, check-config and plugins read; a flag beats its
// variable, and a bad value stops them (exit 2) as a bad flag does.
constexpr const char* kEnvironmentHelp =
    "\nEnvironment (docs/configuration.md has each in full):\n"
    "  ABX_SERVER_TOKEN                     the access token (unset: open, loopback only)\n"
    "  ABX_SERVER_ALLOWED_HOSTS             --allowed-host\n"
    "  ABX_SERVER_CORS_ORIGINS              --cors-origin\n"
    "  ABX_CHILD_USER                       --child-user\n"
    "  ABX_SERVER_BASE_DIR                  --base-dir (default /home/user)\n"
    "  ABX_SERVER_STATE_DIR                 --state-dir\n"
    "  ABX_PLUGIN_DIR                       --plugin-dir\n"
    "  ABX_PTY_PORT                         --pty-port (default 9001)\n"
    "  ABX_SERVER_THREADS                   --threads (default 64, 2-4096)\n"
    "  ABX_SERVER_MAX_CONNECTIONS           open connections at once (default 16384)\n"
    "  ABX_SERVER_MAX_CONNECTIONS_PER_PEER  the same per client address (default 4096)\n"
    "  ABX_SERVER_HEAD_TIMEOUT_S            seconds for a request's head (default 10)\n"
    "  ABX_SERVER_IDLE_TIMEOUT_S            seconds a keep-alive connection waits (default 30)\n"
    "  ABX_SERVER_IO_TIMEOUT_S              seconds one read or write may wait (default 60)\n"
    "  ABX_SERVER_DRAIN_TIMEOUT_S           --drain-timeout (default 10)\n"
    "  ABX_SERVER_POLICY                    the policy inline (after --policy/--preset)\n"
    "  ABX_SERVER_POLICY_FILE               a policy file (after ABX_SERVER_POLICY)\n"
    "  ABX_SERVER_ENABLED_GROUPS            comma list of opt-in groups to turn on\n"
    "  ABX_AGENTS_ADAPTER_MODULES           comma list of adapter .so files to load\n"
    "  ABX_LOG_LEVEL                        debug, info (default), warn or error\n"
    "  ABX_LOG_FORMAT                       text (default) or json: one object per line\n"
    "  ABX_ACCESS_LOG                       --access-log: a file, or - for stderr\n"
    "  ABX_<PLUGIN>_<KEY>                   a plugin's setting (ABX_AGENTS_MAX_SESSIONS, ...)\n";

bool readsEnvironment(const Command& cmd) {
  const std::string name = cmd.name;
  return name == "serve" || name == "check-config" || name == "plugins" || name == "openapi";
}

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"serve",
       "serve [--host H] [--port P] [--pty-port P] [--plugins MANIFEST] [--plugin-dir DIR]\n"
       "      [--policy FILE] [--preset NAME] [--base-dir DIR] [--state-dir DIR] [--threads N]\n"
       "      [--allowed-host NAMES] [--cors-origin ORIGINS] [--child-user USER]\n"
       "      [--drain-timeout SECONDS] [--access-log FILE|-] [--insecure-no-auth]",
       "Start the server (default 127.0.0.1:9000). Plugins come from the manifest\n"
       "(default plugins.yaml and plugins.d/*.yaml of the install's config dir)\n"
       "and ABX_AGENTS_ADAPTER_MODULES. --port 0 picks a free port; the chosen one is\n"
       "printed as 'listening on HOST:PORT' once every plugin has started.\n"
       "Binding a non-loopback host requires ABX_SERVER_TOKEN or --insecure-no-auth.\n"
       "Only requests whose Host names the server are answered (localhost, 127.0.0.1,\n"
       "[::1], the bind address, the address a connection arrived on, and the comma\n"
       "list --allowed-host / ABX_SERVER_ALLOWED_HOSTS; '*' turns the check off).\n"
       "Browser pages of other origins are refused unless listed in --cors-origin /\n"
       "ABX_SERVER_CORS_ORIGINS (comma list of scheme://host[:port]).\n"
       "--child-user / ABX_CHILD_USER: when the server runs as root, every child it\n"
       "starts runs as that user. --state-dir / ABX_SERVER_STATE_DIR: the server's own\n"
       "state (default: the install's, /var/lib/agent-sandbox for a /usr install, if\n"
       "writable, else $XDG_STATE_HOME/agent-sandbox), never reachable through the file\n"
       "API. The config dir is /etc/agent-sandbox for a /usr install. On SIGTERM the\n"
       "server drains: requests in flight get up to --drain-timeout seconds (10).\n"
       "--access-log / ABX_ACCESS_LOG: one line per request (ABX_LOG_FORMAT's format)\n"
       "appended to FILE (created 0600), or to stderr for '-'.",
       {"--host", "--port", "--pty-port", "--plugins", "--plugin-dir", "--policy", "--preset",
        "--base-dir", "--state-dir", "--threads", "--allowed-host", "--cors-origin", "--child-user",
        "--drain-timeout", "--access-log"},
       {"--insecure-no-auth"}},
      {"healthcheck",
       "healthcheck [--host H] [--port P] [--timeout SECONDS] [--ready]",
       "GET /health; exit 0 on 200, 1 otherwise (for Docker HEALTHCHECK and ready_cmd).",
       {"--host", "--port", "--timeout"},
       {"--ready"}},
      {"check-config",
       "check-config [--plugins MANIFEST] [--plugin-dir DIR] [--policy FILE] [--preset NAME]\n"
       "      [--strict] [--json] [--explain ENDPOINT [--path P] [--scopes S,S] [--op read]]",
       "Load and start every plugin as serve would, read the policy from the same\n"
       "sources (--policy/--preset, ABX_SERVER_POLICY, ABX_SERVER_POLICY_FILE,\n"
       "server-policy.json of the config dir) and compile it. Exit 0 when the\n"
       "configuration is valid, 2 otherwise. --strict turns warnings (a glob that\n"
       "matches no endpoint) into errors. --explain prints the verdict the server\n"
       "would give a caller holding --scopes (default *) on ENDPOINT, for --path\n"
       "with --op (read, write, remove, list), and the rule that decided.",
       {"--plugins", "--plugin-dir", "--policy", "--preset", "--explain", "--path", "--scopes",
        "--op"},
       {"--json", "--strict"}},
      {"openapi",
       "openapi [--plugins MANIFEST] [--plugin-dir DIR] [--policy FILE] [--preset NAME]\n"
       "      [--scopes S,S]",
       "Print the OpenAPI document GET /openapi.json would serve to a caller holding\n"
       "--scopes (default *), with the plugins and policy check-config would use;\n"
       "binds nothing. Its `servers` entry is \"/\".",
       {"--plugins", "--plugin-dir", "--policy", "--preset", "--scopes"},
       {}},
      {"plugins",
       "plugins [--plugins MANIFEST] [--plugin-dir DIR] [--json]",
       "List what the manifest would load and whether each plugin loads.",
       {"--plugins", "--plugin-dir"},
       {"--json"}},
      {"version", "version", "Print the server version and the plugin ABI version.", {}, {}},
  };
  return kCommands;
}

void printUsage(std::FILE* out) {
  std::fprintf(out, "usage: agent-sandbox-server <command> [options]\n\ncommands:\n");
  for (const auto& c : commands()) std::fprintf(out, "  %s\n", c.usage);
  std::fprintf(out, "\nRun 'agent-sandbox-server <command> --help' for details.\n");
}

// Returns nullopt after printing the error (exit 2) or help (exit 0, via help flag).
std::optional<Parsed> parse(const Command& cmd, int argc, char** argv, int& exit_code) {
  Parsed parsed;
  std::vector<std::string> known = cmd.options;
  known.insert(known.end(), cmd.flags.begin(), cmd.flags.end());
  known.push_back("--help");
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: agent-sandbox-server %s\n\n%s\n%s", cmd.usage, cmd.help,
                  readsEnvironment(cmd) ? kEnvironmentHelp : "");
      exit_code = 0;
      return std::nullopt;
    }
    std::string value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    if (std::find(cmd.flags.begin(), cmd.flags.end(), arg) != cmd.flags.end()) {
      parsed.flags.insert(arg);
      continue;
    }
    if (std::find(cmd.options.begin(), cmd.options.end(), arg) == cmd.options.end()) {
      std::fprintf(stderr, "agent-sandbox-server %s: unknown option '%s'%s\n", cmd.name,
                   arg.c_str(), didYouMean(arg, known).c_str());
      exit_code = 2;
      return std::nullopt;
    }
    if (!has_inline) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "agent-sandbox-server %s: %s needs a value\n", cmd.name, arg.c_str());
        exit_code = 2;
        return std::nullopt;
      }
      value = argv[++i];
    }
    parsed.options[arg] = value;
  }
  return parsed;
}

bool parsePort(const std::string& text, int& port, const char* what) {
  if (auto error = readPort(text, what, port)) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
    return false;
  }
  return true;
}

int serve(const Parsed& p) {
  // Not dumpable: a child running as the same user cannot read this
  // process's memory or /proc/<pid>/{environ,maps,mem}, nor ptrace it.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  auto base = baseConfig(p);
  if (!base) return 2;
  ServerConfig c = std::move(*base);
  applyPolicyOptions(p, c);
  if (c.manifest_explicit && !std::filesystem::exists(c.manifest)) {
    std::fprintf(stderr, "agent-sandbox-server: %s: no such plugin manifest\n", c.manifest.c_str());
    return 2;
  }
  if (auto it = p.options.find("--host"); it != p.options.end()) c.host = it->second;
  if (auto it = p.options.find("--port"); it != p.options.end())
    if (!parsePort(it->second, c.port, "--port")) return 2;
  if (auto it = p.options.find("--pty-port"); it != p.options.end())
    if (!parsePort(it->second, c.pty_port, "--pty-port")) return 2;
  if (auto it = p.options.find("--base-dir"); it != p.options.end()) c.base_dir = it->second;
  if (auto it = p.options.find("--state-dir"); it != p.options.end()) c.state_dir = it->second;
  if (auto it = p.options.find("--allowed-host"); it != p.options.end())
    c.allowed_hosts = commaList(it->second);
  if (auto it = p.options.find("--cors-origin"); it != p.options.end())
    c.cors_origins = commaList(it->second);
  for (const auto& origin : c.cors_origins) {
    if (!OriginPolicy::normaliseOrigin(origin)) {
      std::fprintf(stderr,
                   "agent-sandbox-server: --cors-origin/ABX_SERVER_CORS_ORIGINS: '%s' is not an "
                   "origin (scheme://host[:port])\n",
                   origin.c_str());
      return 2;
    }
  }
  if (auto it = p.options.find("--child-user"); it != p.options.end()) c.child_user = it->second;
  if (auto it = p.options.find("--threads"); it != p.options.end()) {
    long long threads = 0;
    if (auto error = readInteger(it->second, "--threads", 2, 4096, threads)) {
      std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
      return 2;
    }
    c.threads = static_cast<int>(threads);
  }
  if (auto it = p.options.find("--drain-timeout"); it != p.options.end()) {
    long long seconds = 0;
    if (auto error = readInteger(it->second, "--drain-timeout", 1, 3600, seconds)) {
      std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
      return 2;
    }
    c.drain_timeout_s = static_cast<int>(seconds);
  }
  if (auto it = p.options.find("--access-log"); it != p.options.end()) c.access_log = it->second;
  c.insecure_no_auth = p.flags.count("--insecure-no-auth") > 0;
  Server server(std::move(c));
  return server.run();
}

int healthcheck(const Parsed& p) {
  std::string host = "127.0.0.1";
  int port = 9000;
  double timeout = 5;
  if (auto it = p.options.find("--host"); it != p.options.end()) host = it->second;
  if (auto it = p.options.find("--port"); it != p.options.end())
    if (!parsePort(it->second, port, "--port")) return 1;
  if (auto it = p.options.find("--timeout"); it != p.options.end())
    timeout = std::atof(it->second.c_str());
  // --ready: the readiness probe (503 while starting or draining).
  const std::string path = p.flags.count("--ready") ? "/ready" : "/health";
  auto probe =
      probeHealth(host, port, path, std::chrono::milliseconds(static_cast<long>(timeout * 1e3)));
  if (probe.status == 200) {
    std::printf("ok\n");
    return 0;
  }
  if (probe.status != 0)
    std::fprintf(stderr, "healthcheck: HTTP %d\n", probe.status);
  else
    std::fprintf(stderr, "healthcheck: %s\n", probe.error.c_str());
  return 1;
}

// Probes each enabled plugin; prints a table or JSON. @return count of
// required plugins that would fail, or -1 when the manifest itself fails.
int probeAll(const Parsed& p, bool json) {
  auto base = baseConfig(p);
  if (!base) return -1;
  ServerConfig c = std::move(*base);
  if (c.manifest.empty()) {
    std::fprintf(stderr, "agent-sandbox-server: no plugin manifest found (pass --plugins)\n");
    return -1;
  }
  auto manifest = loadManifest(c.manifest, c.adapter_modules);
  if (!manifest) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", manifest.status().message().c_str());
    return -1;
  }
  int failures = 0;
  std::vector<std::string> ids;
  std::deque<PluginRecord> records;
  for (const auto& entry : manifest->entries) {
    auto& r = records.emplace_back();
    r.entry = entry;
    r.path = resolvePluginFile(entry, c.plugin_dir);
    if (!entry.enabled) {
      r.state = "disabled";
      continue;
    }
    if (auto error = PluginLoader::probe(r, ids)) {
      r.error = error;
      r.state = "failed";
      if (entry.required) ++failures;
    } else {
      r.state = "ok";
      ids.push_back(r.id);
    }
  }
  if (json) {
    sdk::JsonWriter out;
    out.beginObject()
        .member("manifest", manifest->path)
        .member("plugin_dir", c.plugin_dir)
        .key("plugins")
        .beginArray();
    for (const auto& r : records) {
      out.beginObject()
          .member("name", r.entry.name)
          .member("file", r.path)
          .member("state", r.state)
          .member("required", r.entry.required)
          .member("id", r.id)
          .member("version", r.version)
          .member("kind", kindName(r.kind));
      if (r.error) writeLoadError(out.key("error"), *r.error);
      out.endObject();
    }
    out.endArray().endObject();
    std::printf("%s\n", out.text().c_str());
  } else {
    std::printf("manifest:   %s\nplugin dir: %s\n\n", manifest->path.c_str(), c.plugin_dir.c_str());
    std::printf("%-16s %-9s %-9s %-24s %-8s %s\n", "NAME", "STATE", "REQUIRED", "ID", "VERSION",
                "FILE");
    for (const auto& r : records) {
      std::printf("%-16s %-9s %-9s %-24s %-8s %s\n", r.entry.name.c_str(), r.state.c_str(),
                  r.entry.required ? "yes" : "no", r.id.empty() ? "-" : r.id.c_str(),
                  r.version.empty() ? "-" : r.version.c_str(), r.path.c_str());
      if (r.error) std::printf("  %s: %s\n", r.error->stage.c_str(), r.error->message.c_str());
    }
  }
  return failures;
}

}  // namespace

std::optional<ServerConfig> baseConfig(const Parsed& p) {
  ServerConfig c;
  if (auto error = applyEnvironmentDefaults(c)) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
    return std::nullopt;
  }
  if (auto it = p.options.find("--plugins"); it != p.options.end()) {
    c.manifest = it->second;
    c.manifest_explicit = true;
  }
  if (auto it = p.options.find("--plugin-dir"); it != p.options.end()) c.plugin_dir = it->second;
  return c;
}

void applyPolicyOptions(const Parsed& p, ServerConfig& c) {
  if (auto it = p.options.find("--policy"); it != p.options.end()) c.policy_file = it->second;
  if (auto it = p.options.find("--preset"); it != p.options.end()) c.preset = it->second;
  c.strict = p.flags.count("--strict") > 0;
}

int runCli(int argc, char** argv) {
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(stdout);
    return 0;
  }
  if (name == "--version") name = "version";
  const Command* cmd = nullptr;
  std::vector<std::string> names;
  for (const auto& c : commands()) {
    names.push_back(c.name);
    if (name == c.name) cmd = &c;
  }
  if (!cmd) {
    std::fprintf(stderr, "agent-sandbox-server: unknown command '%s'%s\n", name.c_str(),
                 didYouMean(name, names).c_str());
    printUsage(stderr);
    return 2;
  }
  int exit_code = 0;
  auto parsed = parse(*cmd, argc, argv, exit_code);
  if (!parsed) return exit_code;

  if (name == "serve") return serve(*parsed);
  if (name == "healthcheck") return healthcheck(*parsed);
  if (name == "version") {
    std::printf("agent-sandbox-server %s (plugin ABI %d.%d, SDK %s)\n", kServerVersion,
                ABX_SDK_ABI_MAJOR, ABX_SDK_ABI_MINOR, ABX_SDK_VERSION_STRING);
    return 0;
  }
  if (name == "openapi") return printOpenApi(*parsed);
  if (name == "plugins") return probeAll(*parsed, parsed->flags.count("--json") > 0) < 0 ? 2 : 0;
  return checkConfig(*parsed);
}

}  // namespace abx::kernel
