// plugins_fuzz sub-target: the files plugin's upload body scanner
// (JsonBodyScanner, which reads POST /files/upload bodies in pieces and
// streams "content_base64" out without holding it).
//
// Input: four bytes that pick where the body is cut, then the body.
// Checked:
//   - the scanner gives the same verdict, kept strings, member kinds and
//     streamed bytes whether fed whole or in pieces (each piece in a heap
//     block of its own size, so ASan sees a read past it);
//   - a body it accepts that the SDK parser accepts too is an object with
//     the same string members (kept or streamed) and member kinds; one the
//     SDK refuses has a nested value (the scanner checks only its brackets
//     and strings) or a non-ASCII byte (it does not check UTF-8);
//   - a flat object the SDK parser accepts (strings and scalars, short
//     strings), written back by the SDK (which merges repeated keys, which
//     the scanner refuses), is accepted by the scanner.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "fuzz_check.h"
#include "fuzz_pieces.h"
#include "json_body_scanner.h"

namespace abx::fuzz {
namespace {

using plugins::files::JsonBodyScanner;

constexpr std::size_t kMaxKept = 64;

struct Outcome {
  bool ok = false;
  std::map<std::string, std::string, std::less<>> strings;
  std::map<std::string, sdk::JsonKind, std::less<>> kinds;
  std::string streamed;
  int ends = 0;

  bool operator==(const Outcome&) const = default;
};

Outcome scan(const std::vector<std::string_view>& parts) {
  Outcome out;
  JsonBodyScanner scanner(
      {"content_base64"},
      [&](std::string_view, std::string_view bytes, bool done) {
        out.streamed.append(bytes);
        out.ends += done ? 1 : 0;
        return sdk::Status::ok();
      },
      kMaxKept);
  bool ok = true;
  for (auto part : parts) {
    auto block = std::make_unique<char[]>(part.size() ? part.size() : 1);
    std::copy(part.begin(), part.end(), block.get());
    ok = scanner.feed(std::string_view(block.get(), part.size())).isOk() && ok;
  }
  out.ok = ok && scanner.finish().isOk();
  out.strings = scanner.strings();
  out.kinds = scanner.kinds();
  if (!out.ok) out = Outcome{};  // after a failure only the verdict counts
  return out;
}

/** A flat object: scalars, and keys and strings no longer than the scanner keeps. */
bool flatAndShort(const sdk::Json& json) {
  for (const auto& key : json.keys()) {
    if (key.size() > kMaxKept) return false;  // a key is kept too
    const auto kind = json.kind(key);
    if (kind == sdk::JsonKind::object || kind == sdk::JsonKind::array) return false;
    if (kind == sdk::JsonKind::string && key != "content_base64" &&
        json.string(key)->size() > kMaxKept)
      return false;
  }
  return true;
}

}  // namespace

void fuzzUploadBody(std::string_view data) {
  if (data.size() < 4) return;
  const auto* cuts = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::string_view body = data.substr(4);
  const Outcome whole = scan({body});
  check(scan(pieces(body, cuts)) == whole, "pieces and whole scan alike", body);

  const auto parsed = sdk::Json::parse(body);
  // The scanner checks only the brackets and strings of a nested value, and
  // not UTF-8 (the SDK parser checks both): a body it accepts but the SDK
  // refuses must have a nested value or a non-ASCII byte.
  const bool ascii = std::all_of(body.begin(), body.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  const auto open = body.find('{');
  const bool nested = open != std::string_view::npos &&
                      body.find_first_of("[{", open + 1) != std::string_view::npos;
  const bool blank = body.find_first_not_of(" \t\r\n") == std::string_view::npos;  // "{}"
  if (whole.ok && !parsed && !blank)
    check(!ascii || nested, "a flat ASCII body the scanner accepts is JSON", body);
  // A lone \udc80-\udcff is the raw byte to the scanner (surrogateescape,
  // for file names that are not UTF-8) and U+FFFD to the SDK parser.
  const bool surrogates =
      body.find("\\ud") != std::string_view::npos || body.find("\\uD") != std::string_view::npos;
  if (whole.ok && parsed && !blank) {
    check(parsed && parsed->isObject(), "an accepted body is a JSON object", body);
    check(whole.ends <= 1, "a streamed member ends once", body);
    for (const auto& [key, kind] : whole.kinds) {
      // A key with a lone surrogate escape decodes differently too (above):
      // it is no member the endpoint knows, so only the count is compared.
      if (surrogates && !parsed->has(key)) continue;
      check(parsed->kind(key) == kind, "member kinds agree with the SDK parser", body);
      if (kind != sdk::JsonKind::string) continue;
      const std::string& text = key == "content_base64" ? whole.streamed : whole.strings.at(key);
      check(surrogates || *parsed->string(key) == text, "string members agree with the SDK parser",
            body);
    }
    check(parsed->keys().size() == whole.kinds.size(), "the same members", body);
  }
  if (parsed && parsed->isObject() && flatAndShort(*parsed)) {
    const std::string written = parsed->dump();
    check(scan({written}).ok, "the scanner accepts a flat object the SDK wrote", written);
  }
}

}  // namespace abx::fuzz
