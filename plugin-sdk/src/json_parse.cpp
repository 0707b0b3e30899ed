// The SDK's JSON parser (RFC 8259): one pass, recursive descent bounded by
// kMaxDepth, strings checked for UTF-8 and escapes decoded, numbers kept with
// their spelling. Errors name what was expected and the byte offset.
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "json_node.h"

namespace abx::sdk::json_detail {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  bool document(Node& root) {
    skipSpace();
    if (pos_ == s_.size()) return fail("no value");
    if (!value(root, 0)) return false;
    skipSpace();
    if (pos_ != s_.size()) return fail("more than one value");
    return true;
  }
  std::string error;

 private:
  bool fail(std::string_view what) {
    if (error.empty()) error = std::string(what) + " at offset " + std::to_string(pos_);
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("unknown word");
    pos_ += word.size();
    return true;
  }

  bool value(Node& node, int depth) {
    if (pos_ >= s_.size()) return fail("unexpected end");
    switch (s_[pos_]) {
      case '{':
        return object(node, depth + 1);
      case '[':
        return array(node, depth + 1);
      case '"':
        node.kind = JsonKind::string;
        return string(node.text);
      case 't':
        node.kind = JsonKind::boolean;
        node.boolean = true;
        return literal("true");
      case 'f':
        node.kind = JsonKind::boolean;
        return literal("false");
      case 'n':
        node.kind = JsonKind::null;
        return literal("null");
      default:
        return number(node);
    }
  }

  bool object(Node& node, int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    node.kind = JsonKind::object;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    for (;;) {
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
      auto& member = node.members.emplace_back();
      if (!string(member.key)) return false;
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      skipSpace();
      if (!value(member.value, depth)) return false;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') break;
      return fail("expected ',' or '}'");
    }
    ++pos_;
    mergeRepeatedKeys(node.members);
    return true;
  }

  bool array(Node& node, int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    node.kind = JsonKind::array;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    for (;;) {
      skipSpace();
      if (!value(node.elements.emplace_back(), depth)) return false;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') break;
      return fail("expected ',' or ']'");
    }
    ++pos_;
    return true;
  }

  // A repeated key keeps its first place and takes the last value, as the
  // JavaScript clients do; linear for small objects, hashed for large ones
  // so a body of many keys cannot make parsing quadratic.
  static void mergeRepeatedKeys(std::vector<Member>& members) {
    if (members.size() < 2) return;
    std::unordered_map<std::string_view, std::size_t> first;
    first.reserve(members.size());
    std::vector<Member> kept;
    bool repeated = false;
    for (std::size_t i = 0; i < members.size() && !repeated; ++i)
      repeated = !first.emplace(members[i].key, i).second;
    if (!repeated) return;
    first.clear();
    kept.reserve(members.size());
    for (auto& member : members) {
      auto it = first.find(member.key);
      if (it != first.end()) {
        kept[it->second].value = std::move(member.value);
        continue;
      }
      kept.push_back(std::move(member));
      first.emplace(kept.back().key, kept.size() - 1);
    }
    // `kept` never reallocates (reserved), so the map's views into its keys hold.
    members = std::move(kept);
  }

  bool number(Node& node) {
    const std::size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !isDigit(s_[pos_])) return fail("unexpected character");
    if (s_[pos_] == '0')
      ++pos_;
    else
      while (pos_ < s_.size() && isDigit(s_[pos_])) ++pos_;
    bool whole = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      whole = false;
      ++pos_;
      if (!digits()) return fail("expected a digit");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      whole = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return fail("expected a digit");
    }
    node.text.assign(s_.substr(start, pos_ - start));
    const char* first = node.text.data();
    const char* last = first + node.text.size();
    if (whole) {
      node.kind = JsonKind::integer;
      node.in_range = std::from_chars(first, last, node.integer).ec == std::errc();
      if (node.in_range) {
        node.number = static_cast<double>(node.integer);
        return true;
      }
    } else {
      node.kind = JsonKind::number;
    }
    // Beyond double's range: ±HUGE_VAL or 0, as strtod reads it.
    if (std::from_chars(first, last, node.number).ec != std::errc())
      node.number = std::strtod(node.text.c_str(), nullptr);
    return true;
  }
  bool digits() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && isDigit(s_[pos_])) ++pos_;
    return pos_ > start;
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  bool string(std::string& out) {
    ++pos_;  // the opening quote
    for (;;) {
      // Copy the plain run in one piece.
      std::size_t run = pos_;
      while (run < s_.size() && s_[run] != '"' && s_[run] != '\\' &&
             static_cast<unsigned char>(s_[run]) >= 0x20 &&
             static_cast<unsigned char>(s_[run]) < 0x80)
        ++run;
      out.append(s_.data() + pos_, run - pos_);
      pos_ = run;
      if (pos_ >= s_.size()) return fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') return ++pos_, true;
      if (c < 0x20) return fail("control character in a string");
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (!utf8Sequence(out)) {
        return false;
      }
    }
  }

  bool utf8Sequence(std::string& out) {
    const auto c = static_cast<unsigned char>(s_[pos_]);
    const std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || pos_ + len > s_.size()) return fail("invalid UTF-8 in a string");
    unsigned cp = c & (0x7F >> len);
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s_[pos_ + k]);
      if ((b & 0xC0) != 0x80) return fail("invalid UTF-8 in a string");
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr unsigned kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return fail("invalid UTF-8 in a string");
    out.append(s_.data() + pos_, len);
    pos_ += len;
    return true;
  }

  bool escape(std::string& out) {
    if (++pos_ >= s_.size()) return fail("unterminated string");
    const char c = s_[pos_++];
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += c;
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        return unicodeEscape(out);
      default:
        --pos_;
        return fail("unknown escape");
    }
  }

  bool hex4(unsigned& cp) {
    if (pos_ + 4 > s_.size()) return fail("short \\u escape");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[pos_++];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) return fail("bad \\u escape");
      cp = cp << 4 | static_cast<unsigned>(d);
    }
    return true;
  }

  // A lone surrogate has no UTF-8 spelling: it becomes U+FFFD.
  bool unicodeEscape(std::string& out) {
    unsigned cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
      const std::size_t back = pos_;
      pos_ += 2;
      unsigned low = 0;
      if (!hex4(low)) return false;
      if (low >= 0xDC00 && low <= 0xDFFF)
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      else
        pos_ = back;  // the next escape stands alone
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    appendUtf8(out, cp);
    return true;
  }

  static void appendUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | cp >> 6);
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | cp >> 12);
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | cp >> 18);
      out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::shared_ptr<const Node> parseDocument(std::string_view text, std::string& error) {
  auto root = std::make_shared<Node>();
  Parser parser(text);
  if (!parser.document(*root)) {
    error = std::move(parser.error);
    return nullptr;
  }
  return root;
}

void appendNode(std::string& out, const Node& node) {
  switch (node.kind) {
    case JsonKind::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : node.members) {
        if (!first) out += ',';
        first = false;
        appendJsonQuoted(out, key);
        out += ':';
        appendNode(out, value);
      }
      out += '}';
      return;
    }
    case JsonKind::array: {
      out += '[';
      for (std::size_t i = 0; i < node.elements.size(); ++i) {
        if (i) out += ',';
        appendNode(out, node.elements[i]);
      }
      out += ']';
      return;
    }
    case JsonKind::string:
      appendJsonQuoted(out, node.text);
      return;
    case JsonKind::integer:
    case JsonKind::number:
      out += node.text;
      return;
    case JsonKind::boolean:
      out += node.boolean ? "true" : "false";
      return;
    default:
      out += "null";
  }
}

}  // namespace abx::sdk::json_detail
