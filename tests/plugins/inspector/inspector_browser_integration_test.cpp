// Integration (label browser): the inspector page in real headless Chromium.
// The server runs the agents group with a fake agent, the browser group and
// the inspector; the test drives the server's own Chromium (CDP through the
// browser routes): it opens /ui, pastes the token into the page's field and
// connects, starts an agent turn through the HTTP API, and waits until the
// page shows that turn's reply, grown from its streamed deltas, as text (the
// reply carries markup that must not become an element); then a background
// process with its output, a terminal and an audited refusal. The token is
// in no storage, cookie or URL of the page afterwards. A screenshot of the
// page is kept as <build>/test-artefacts/inspector.png.
#include <Poco/Base64Decoder.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "abx/sdk/json.h"
#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kToken = "inspector-browser-token-123";
// The prompt's last line comes back as the reply: "turn 1: <prompt>".
constexpr const char* kPrompt = "<b id=pwned>bold</b> hello inspector";

ServerOptions inspectedServer() {
  ServerOptions o = fakeAgentsServer(R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-claude"], parser: jsonl-claude}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "50"}
    workspace: {path: "{dir}/work"}
)",
                                     kToken);
  o.manifest =
      "plugins:\n  - name: agents\n    file: abx_agents.so\n"
      "  - name: adapter_command\n    file: abx_adapter_command.so\n"
      "  - name: process\n    file: abx_process.so\n"
      "  - name: terminal\n    file: abx_terminal.so\n"
      "  - name: browser\n    file: abx_browser.so\n"
      "  - name: inspector\n    file: abx_inspector.so\n";
  o.env["ABX_SERVER_ENABLED_GROUPS"] = "agents,browser";
  // Every request audited: the page's own polling among them.
  o.files["policy.yaml"] = "defaults:\n  audit: all\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  return o;
}

Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

class BrowserInspector : public ::testing::Test {
 protected:
  HttpResult call(const std::string& method, const std::string& path, const std::string& body) {
    return http(server_.port(), method, path, body, bearerJson(kToken));
  }
  // A browser route's JSON answer; fails the test on any other status.
  Poco::JSON::Object::Ptr browser(const std::string& route, const std::string& body) {
    auto r = call("POST", "/browser/" + route, body);
    EXPECT_EQ(r.status, 200) << route << ": " << r.body.substr(0, 500);
    return r.status == 200 ? object(r.body) : Poco::JSON::Object::Ptr();
  }
  // Evaluates @p check (an expression) in the page every 100 ms until it is
  // truthy, for at most @p seconds: its value (an object), or null with the
  // page's text in the failure.
  Poco::JSON::Object::Ptr waitInPage(const std::string& check, int seconds) {
    const std::string script =
        "new Promise((resolve) => { const deadline = Date.now() + " +
        std::to_string(seconds * 1000) + "; const tick = () => { const v = (" + check +
        "); if (v) return resolve(v); if (Date.now() > deadline) return resolve({timeout: "
        "document.body.innerText.slice(0, 3000)}); setTimeout(tick, 100); }; tick(); })";
    auto r = browser("evaluate", "{\"script\":" + sdk::jsonQuote(script) +
                                     ",\"timeout\":" + std::to_string((seconds + 5) * 1000) + "}");
    if (!r) return {};
    auto value = r->getObject("result");
    EXPECT_TRUE(value) << "not an object";
    if (value && value->has("timeout")) {
      ADD_FAILURE() << "timed out waiting for " << check << "\npage:\n"
                    << value->getValue<std::string>("timeout");
      return {};
    }
    return value;
  }

  // Opens /ui, pastes the token (typed into the field over CDP) and connects.
  void openAndConnect() {
    auto nav = browser("navigate",
                       "{\"url\":\"http://127.0.0.1:" + std::to_string(server_.port()) + "/ui\"}");
    ASSERT_TRUE(nav);
    EXPECT_EQ(nav->getValue<std::string>("title"), "agent-sandbox-server inspector");
    EXPECT_EQ(nav->getValue<int>("status"), 200);
    ASSERT_TRUE(browser("type", std::string(R"({"selector":"#token","text":")") + kToken + "\"}"));
    ASSERT_TRUE(browser("click", R"({"selector":"#connect"})"));
    auto connected = waitInPage(
        "document.getElementById('status').textContent.startsWith('Connected as') && "
        "{status: document.getElementById('status').textContent}",
        15);
    ASSERT_TRUE(connected);
    EXPECT_THAT(connected->getValue<std::string>("status"), StartsWith("Connected as legacy"));
  }

  // Starts a turn through the API (not through the page) and waits for the
  // page to show its reply, grown from deltas, in the completed turn.
  void expectATurnStreamedIntoThePage() {
    auto session = call("POST", "/v1/agents/sessions", R"({"agent_id":"fake"})");
    ASSERT_EQ(session.status, 200) << session.body;
    const auto id = object(session.body)->getValue<std::string>("id");
    auto input = call("POST", "/v1/agents/sessions/" + id + "/events",
                      std::string(R"({"events":[{"type":"agent.session.input.message","input":")") +
                          kPrompt + "\"}]}");
    ASSERT_EQ(input.status, 202) << input.body;
    const std::string reply = std::string("turn 1: ") + kPrompt;
    auto shown = waitInPage(
        "(() => { const item = [...document.querySelectorAll('#session-view .item.message')]"
        ".find((n) => Number(n.dataset.deltas) > 0 && n.querySelector('.text').textContent === " +
            sdk::jsonQuote(reply) +
            "); const turn = item && item.closest('.turn'); "
            "return item && turn.querySelector('.badge').textContent === 'completed' && "
            "{deltas: Number(item.dataset.deltas), turn: turn.dataset.turn, "
            "user: [...turn.querySelectorAll('.item.message')].map((n) => "
            "n.querySelector('.text').textContent).join('|'), "
            "session: document.querySelector('#session-view h3').textContent, "
            "pwned: document.getElementById('pwned') !== null}; })()",
        60);
    ASSERT_TRUE(shown);
    EXPECT_GE(shown->getValue<int>("deltas"), 1);
    EXPECT_THAT(shown->getValue<std::string>("turn"), StartsWith("turn_"));
    EXPECT_THAT(shown->getValue<std::string>("user"), StartsWith(std::string(kPrompt) + "|"));
    EXPECT_THAT(shown->getValue<std::string>("session"), HasSubstr(id));
    // The agent's markup stayed text.
    EXPECT_FALSE(shown->getValue<bool>("pwned"));
  }

  // A process and its output, a terminal, the audit records (an audited
  // refusal and the test's own calls, not the page's), and the metrics (or
  // why there are none).
  void expectTheOtherPanels() {
    auto process =
        call("POST", "/process/start", R"({"command":["sh","-c","echo inspected-output"]})");
    ASSERT_EQ(process.status, 200) << process.body;
    auto pty = call("POST", "/pty/sessions", "{}");
    ASSERT_EQ(pty.status, 200) << pty.body;
    const auto pty_id = object(pty.body)->getValue<std::string>("session_id");
    EXPECT_EQ(http(server_.port(), "GET", "/capabilities", "", {{"X-Access-Token", "wrong-token"}})
                  .status,
              401);
    auto panels = waitInPage(
        "document.getElementById('processes').textContent.includes('echo inspected-output') && "
        "document.getElementById('terminals').textContent.includes(" +
            sdk::jsonQuote(pty_id) +
            ") && document.getElementById('audit').textContent.includes('GET /capabilities') && "
            "document.getElementById('audit').textContent.includes('POST /process/start') && "
            "{ok: true, own: document.getElementById('audit').textContent.includes('GET "
            "/process/list')}",
        15);
    ASSERT_TRUE(panels);
    // The page's own calls (GET /process/list is only the page's) are
    // recorded, each with the page's request id, and left out of the panel.
    EXPECT_FALSE(panels->getValue<bool>("own"));
    EXPECT_THAT(call("GET", "/audit/recent?limit=256", "").body,
                ::testing::ContainsRegex(R"("request_id":"inspector-[0-9a-f]{12}-[0-9]+",)"
                                         R"("identity":"legacy","endpoint":"process_list")"));
    ASSERT_TRUE(browser("click", R"({"selector":"#processes tr"})"));
    auto output = waitInPage(
        "document.getElementById('process-output').textContent.includes('[exited with 0]') && "
        "{output: document.getElementById('process-output').textContent, "
        "metrics: document.getElementById('metrics').children.length > 0 || "
        "document.getElementById('metrics-note').textContent.startsWith('metrics unavailable')}",
        15);
    ASSERT_TRUE(output);
    EXPECT_THAT(output->getValue<std::string>("output"), StartsWith("inspected-output\n"));
    EXPECT_TRUE(output->getValue<bool>("metrics"));
  }

  // The token is held by the page's script only.
  void expectTheTokenInNoStorage() {
    auto kept = waitInPage(
        "({stored: localStorage.length + sessionStorage.length, cookie: document.cookie, "
        "url: location.href, field: document.getElementById('token').value, "
        "html: document.documentElement.outerHTML})",
        5);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->getValue<int>("stored"), 0);
    EXPECT_EQ(kept->getValue<std::string>("cookie"), "");
    EXPECT_EQ(kept->getValue<std::string>("field"), "");
    EXPECT_THAT(kept->getValue<std::string>("url"), ::testing::Not(HasSubstr(kToken)));
    EXPECT_THAT(kept->getValue<std::string>("html"), ::testing::Not(HasSubstr(kToken)));
  }

  // The artefact: <build>/test-artefacts/inspector.png, a PNG of the page.
  void keepAScreenshot() {
    auto shot = browser("screenshot", R"({"width":1280,"height":1000})");
    ASSERT_TRUE(shot);
    std::istringstream base64(shot->getValue<std::string>("image_base64"));
    Poco::Base64Decoder decoder(base64);
    const std::string png((std::istreambuf_iterator<char>(decoder)),
                          std::istreambuf_iterator<char>());
    ASSERT_GT(png.size(), 1000u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    const auto dir =
        std::filesystem::path(serverBinary()).parent_path().parent_path() / "test-artefacts";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "inspector.png", std::ios::binary) << png;
    EXPECT_EQ(std::filesystem::file_size(dir / "inspector.png"), png.size());
  }

  ServerProcess server_{inspectedServer()};
};

TEST_F(BrowserInspector, ShowsATurnStreamingIntoThePage) {
  ASSERT_NO_FATAL_FAILURE(openAndConnect());
  ASSERT_NO_FATAL_FAILURE(expectATurnStreamedIntoThePage());
  ASSERT_NO_FATAL_FAILURE(expectTheOtherPanels());
  expectTheTokenInNoStorage();
  keepAScreenshot();
}

}  // namespace
}  // namespace abx::testing
