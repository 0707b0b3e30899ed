// The declarative commands file: a full valid file, the shipped example,
// and one case per load error (each names the file, line and command).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "commands_file.h"

namespace abx::plugins::commands {
namespace {

using sdk::ArgType;
using sdk::CommandValue;

TEST(CommandsFile, ParsesEveryField) {
  auto r = parseCommandsYaml(R"(
commands:
  - name: hello
    description: Say hello.
    argv: ["/bin/echo", "Hello, {name}!"]
    args:
      - {name: name, type: string, required: false, default: World, description: Who to greet}
    output: text
    timeout_seconds: 30
    max_output_bytes: 1048576
    hidden: false
    scopes: []
    env: {LANG: C.UTF-8}
  - name: sum.v2
    argv: [/usr/bin/expr, "{a}", "+", "{b}"]
    args:
      - {name: a, type: integer, required: true}
      - {name: b, type: integer, default: "5"}
      - {name: ratio, type: float, default: 0.5}
      - {name: loud, type: boolean, default: yes}
    output: json
    timeout_seconds: 1.5
    max_output_bytes: 2MiB
    hidden: true
    scopes: [commands:run:sum, extra:scope]
    cwd: work
)",
                             "cmds.yaml", "/etc/abx");
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  const auto& hello = (*r)[0];
  EXPECT_EQ(hello.name, "hello");
  EXPECT_EQ(hello.description, "Say hello.");
  EXPECT_EQ(hello.argv, (std::vector<std::string>{"/bin/echo", "Hello, {name}!"}));
  ASSERT_EQ(hello.args.size(), 1u);
  EXPECT_EQ(hello.args[0].type, ArgType::string);
  EXPECT_FALSE(hello.args[0].required);
  EXPECT_EQ(hello.args[0].default_value, CommandValue(std::string("World")));
  EXPECT_EQ(hello.args[0].description, "Who to greet");
  EXPECT_EQ(hello.output, OutputMode::text);
  EXPECT_EQ(hello.timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(hello.max_output_bytes, 1048576u);
  EXPECT_FALSE(hello.hidden);
  EXPECT_TRUE(hello.scopes.empty());
  EXPECT_EQ(hello.env, (std::vector<std::pair<std::string, std::string>>{{"LANG", "C.UTF-8"}}));
  EXPECT_EQ(hello.cwd, "");

  const auto& sum = (*r)[1];
  EXPECT_EQ(sum.name, "sum.v2");
  EXPECT_EQ(sum.description, "");
  ASSERT_EQ(sum.args.size(), 4u);
  EXPECT_TRUE(sum.args[0].required);
  EXPECT_FALSE(sum.args[0].default_value.has_value());
  EXPECT_EQ(sum.args[1].default_value, CommandValue(std::int64_t{5}));
  EXPECT_EQ(sum.args[2].type, ArgType::floating);
  EXPECT_EQ(sum.args[2].default_value, CommandValue(0.5));
  EXPECT_EQ(sum.args[3].default_value, CommandValue(true));
  EXPECT_EQ(sum.output, OutputMode::json);
  EXPECT_EQ(sum.timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(sum.max_output_bytes, 2u << 20);
  EXPECT_TRUE(sum.hidden);
  EXPECT_EQ(sum.scopes, (std::vector<std::string>{"commands:run:sum", "extra:scope"}));
  EXPECT_EQ(sum.cwd, "/etc/abx/work");
}

TEST(CommandsFile, DefaultsWhenFieldsAreOmitted) {
  auto r = parseCommandsYaml("commands:\n  - {name: x, argv: [true]}\n", "f.yaml");
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].timeout, kDefaultTimeout);
  EXPECT_EQ((*r)[0].max_output_bytes, kDefaultMaxOutputBytes);
  EXPECT_EQ((*r)[0].output, OutputMode::text);
  EXPECT_TRUE((*r)[0].args.empty());
}

TEST(CommandsFile, AllowDashIsRecordedPerArgument) {
  auto r = parseCommandsYaml(
      "commands:\n  - name: g\n    argv: [grep, --, '{p}', '{f}']\n    args:\n"
      "      - {name: p, allow_dash: true}\n      - {name: f, allow_dash: false}\n",
      "f.yaml");
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ((*r)[0].allow_dash, std::vector<std::string>{"p"});
  auto none = parseCommandsYaml("commands:\n  - {name: x, argv: [true]}\n", "f.yaml");
  ASSERT_TRUE(none);
  EXPECT_TRUE((*none)[0].allow_dash.empty());
}

TEST(CommandsFile, EmptyFileAndEmptyListDeclareNothing) {
  for (const char* text : {"", "# nothing\n", "commands:\n", "commands: []\n"}) {
    auto r = parseCommandsYaml(text, "f.yaml");
    ASSERT_TRUE(r) << text << ": " << r.status().message();
    EXPECT_TRUE(r->empty());
  }
}

TEST(CommandsFile, ByteSizes) {
  EXPECT_EQ(parseByteSize("1048576"), 1048576u);
  EXPECT_EQ(parseByteSize("1MiB"), 1048576u);
  EXPECT_EQ(parseByteSize("1M"), 1048576u);
  EXPECT_EQ(parseByteSize("2 MB"), 2000000u);
  EXPECT_EQ(parseByteSize("512kib"), 524288u);
  EXPECT_EQ(parseByteSize("1GiB"), 1u << 30);
  EXPECT_EQ(parseByteSize("0"), std::nullopt);
  EXPECT_EQ(parseByteSize("-1"), std::nullopt);
  EXPECT_EQ(parseByteSize("1.5MiB"), std::nullopt);
  EXPECT_EQ(parseByteSize("12 parsecs"), std::nullopt);
  EXPECT_EQ(parseByteSize(""), std::nullopt);
}

struct LoadError {
  const char* label;
  const char* yaml;
  const char* message;
};

class CommandsFileErrors : public ::testing::TestWithParam<LoadError> {};

TEST_P(CommandsFileErrors, NameTheFileTheCommandAndTheProblem) {
  auto r = parseCommandsYaml(GetParam().yaml, "cmds.yaml");
  ASSERT_FALSE(r) << GetParam().label;
  EXPECT_EQ(r.status().type(), "ValueError");
  EXPECT_EQ(r.status().message(), GetParam().message) << GetParam().label;
}

INSTANTIATE_TEST_SUITE_P(
    OnePerError, CommandsFileErrors,
    ::testing::Values(
        LoadError{"invalid yaml", "commands: [\n  - {name: x\n",
                  "cmds.yaml:2: invalid YAML: illegal block entry"},
        LoadError{"root not a map", "- a\n- b\n",
                  "cmds.yaml:1: expected a mapping with a 'commands' list"},
        LoadError{"unknown top-level key", "commands: []\nextra: 1\n",
                  "cmds.yaml:2: unknown top-level key 'extra' (allowed: commands)"},
        LoadError{"commands not a list", "commands: {a: 1}\n",
                  "cmds.yaml:1: 'commands' must be a list"},
        LoadError{"command not a map", "commands:\n  - hello\n",
                  "cmds.yaml:2: command #1: expected a mapping"},
        LoadError{"missing name", "commands:\n  - argv: [x]\n",
                  "cmds.yaml:2: command #1: missing 'name'"},
        LoadError{"bad name", "commands:\n  - {name: a/b, argv: [x]}\n",
                  "cmds.yaml:2: command 'a/b': name must match [A-Za-z0-9_.-]+ (it is a URL path "
                  "segment)"},
        LoadError{"missing argv", "commands:\n  - name: x\n",
                  "cmds.yaml:2: command 'x': missing 'argv'"},
        LoadError{"empty argv", "commands:\n  - {name: x, argv: []}\n",
                  "cmds.yaml:2: command 'x': 'argv' must start with a program"},
        LoadError{"argv not a list", "commands:\n  - {name: x, argv: echo hi}\n",
                  "cmds.yaml:2: command 'x': 'argv' must be a list of strings"},
        LoadError{"placeholder in program",
                  "commands:\n  - {name: x, argv: ['{p}'], args: [{name: p}]}\n",
                  "cmds.yaml:2: command 'x': argv[0] must not contain a placeholder"},
        LoadError{"undeclared placeholder", "commands:\n  - name: x\n    argv: [echo, '{who}']\n",
                  "cmds.yaml:3: command 'x': placeholder '{who}' is not a declared arg"},
        LoadError{"unknown command key",
                  "commands:\n  - name: x\n    argv: [echo]\n    shell: true\n",
                  "cmds.yaml:4: command 'x': unknown key 'shell' (allowed: name, description, "
                  "argv, args, output, timeout_seconds, max_output_bytes, hidden, scopes, env, "
                  "cwd)"},
        LoadError{"duplicate key", "commands:\n  - name: x\n    argv: [echo]\n    argv: [ls]\n",
                  "cmds.yaml:4: command 'x': duplicate key 'argv'"},
        LoadError{"unknown arg key",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {name: a, kind: "
                  "string}\n",
                  "cmds.yaml:5: command 'x': unknown arg key 'kind' (allowed: name, type, "
                  "required, default, description, allow_dash)"},
        LoadError{"non-boolean allow_dash",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {name: a, "
                  "allow_dash: maybe}\n",
                  "cmds.yaml:5: command 'x': 'allow_dash' must be true or false"},
        LoadError{
            "bad type name",
            "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {name: a, type: int}\n",
            "cmds.yaml:5: command 'x': arg 'a': unknown type 'int' (one of string, integer, "
            "float, boolean)"},
        LoadError{"arg without name",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {type: string}\n",
                  "cmds.yaml:5: command 'x': an arg is missing 'name'"},
        LoadError{"bad arg name",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {name: a-b}\n",
                  "cmds.yaml:5: command 'x': arg name 'a-b' must match [A-Za-z_][A-Za-z0-9_]*"},
        LoadError{"duplicate arg",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n      - {name: a}\n"
                  "      - {name: a}\n",
                  "cmds.yaml:6: command 'x': duplicate arg 'a'"},
        LoadError{"bad default",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n"
                  "      - {name: n, type: integer, default: many}\n",
                  "cmds.yaml:5: command 'x': arg 'n': default must be an integer, got \"many\""},
        LoadError{"bad required",
                  "commands:\n  - name: x\n    argv: [echo]\n    args:\n"
                  "      - {name: n, required: perhaps}\n",
                  "cmds.yaml:5: command 'x': 'required' must be true or false"},
        LoadError{"bad output", "commands:\n  - {name: x, argv: [echo], output: yaml}\n",
                  "cmds.yaml:2: command 'x': 'output' must be text or json, got 'yaml'"},
        LoadError{"bad timeout", "commands:\n  - {name: x, argv: [echo], timeout_seconds: 0}\n",
                  "cmds.yaml:2: command 'x': 'timeout_seconds' must be a positive number"},
        LoadError{"bad max_output_bytes",
                  "commands:\n  - {name: x, argv: [echo], max_output_bytes: lots}\n",
                  "cmds.yaml:2: command 'x': 'max_output_bytes' must be a positive size (1048576, "
                  "1MiB)"},
        LoadError{"bad hidden", "commands:\n  - {name: x, argv: [echo], hidden: sometimes}\n",
                  "cmds.yaml:2: command 'x': 'hidden' must be true or false"},
        LoadError{"bad scopes", "commands:\n  - {name: x, argv: [echo], scopes: {a: 1}}\n",
                  "cmds.yaml:2: command 'x': 'scopes' must be a list of strings"},
        LoadError{"bad env", "commands:\n  - {name: x, argv: [echo], env: [A=1]}\n",
                  "cmds.yaml:2: command 'x': 'env' must be a mapping of NAME: value"},
        LoadError{"bad env name", "commands:\n  - {name: x, argv: [echo], env: {'A=B': 1}}\n",
                  "cmds.yaml:2: command 'x': env name 'A=B' must match [A-Za-z_][A-Za-z0-9_]*"},
        LoadError{"duplicate command",
                  "commands:\n  - {name: x, argv: [echo]}\n  - {name: x, argv: [ls]}\n",
                  "cmds.yaml:3: command 'x': duplicate command name (first defined at line 2)"}),
    [](const ::testing::TestParamInfo<LoadError>& info) {
      std::string name = info.param.label;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

std::string writeTemp(const std::string& text) {
  char path[] = "/tmp/abx_commands_test_XXXXXX";
  int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(CommandsFile, LoadReadsTheFileAndNamesItInErrors) {
  auto path = writeTemp("commands:\n  - {name: x, argv: [echo], cwd: sub}\n");
  auto r = loadCommandsFile(path);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ((*r)[0].cwd, "/tmp/sub");
  std::ofstream(path) << "commands:\n  - {name: x}\n";
  auto bad = loadCommandsFile(path);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(), path + ":2: command 'x': missing 'argv'");
  std::remove(path.c_str());
}

TEST(CommandsFile, MissingFileIsOSError) {
  auto r = loadCommandsFile("/nonexistent/commands.yaml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "OSError");
  EXPECT_EQ(r.status().message(), "Cannot read commands file '/nonexistent/commands.yaml'");
}

// The example shipped in config/ must stay loadable (found from this source
// file's location; skipped when the tree is not there).
TEST(CommandsFile, ShippedExampleLoads) {
  std::string here = __FILE__;
  auto cut = here.rfind("tests/plugins/commands/");
  if (cut == std::string::npos) GTEST_SKIP() << "source tree not found";
  std::string path = here.substr(0, cut) + "config/commands.yaml";
  if (!std::ifstream(path)) GTEST_SKIP() << path << " not found";
  auto r = loadCommandsFile(path);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "hello");
  EXPECT_EQ((*r)[0].argv, (std::vector<std::string>{"/bin/echo", "Hello, {name}!"}));
}

}  // namespace
}  // namespace abx::plugins::commands
