// Helpers shared by the files plugin's integration tests: the manifest, a
// server with a policy, base64 through POCO (an implementation independent of
// the plugin's), JSON parsing, upload bodies and small file utilities.
#pragma once

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "plugins/files/random_bytes.h"
#include "support/server_process.h"

namespace abx::testing {

using Obj = Poco::JSON::Object::Ptr;

inline const std::string kManifest =
    "plugins:\n  - name: files\n    file: abx_files.so\n    id: abx.files\n";

inline ServerOptions withPolicy(const std::string& policy,
                                std::map<std::string, std::string> env = {}) {
  ServerOptions o;
  o.manifest = kManifest;
  o.files = {{"policy.yaml", policy}};
  o.args = {"--policy", "{dir}/policy.yaml"};
  o.env = std::move(env);
  return o;
}

inline Obj parse(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Obj>();
}

inline std::string b64(const std::string& data) {
  std::ostringstream out;
  Poco::Base64Encoder enc(out);
  enc.rdbuf()->setLineLength(0);
  enc << data;
  enc.close();
  return out.str();
}

inline std::string unb64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder dec(in);
  std::string out((std::istreambuf_iterator<char>(dec)), std::istreambuf_iterator<char>());
  return out;
}

inline std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void writeFile(const std::string& path, const std::string& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

inline std::string uploadBody(const std::string& path, const std::string& data) {
  return "{\"path\":" + quote(path) + ",\"content_base64\":\"" + b64(data) + "\"}";
}

inline std::string enc(const std::string& s) {  // percent-encodes a query value
  std::string out;
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace abx::testing
