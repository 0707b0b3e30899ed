// The parsed form behind sdk::Json: a tree of nodes built by the SDK's own
// RFC 8259 parser, and its compact serialisation. Private to the SDK.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"

namespace abx::sdk::json_detail {

struct Member;

struct Node {
  JsonKind kind = JsonKind::null;
  bool boolean = false;
  /** An integer literal beyond int64: kind integer, read as a double only. */
  bool in_range = true;
  std::int64_t integer = 0;
  double number = 0;
  /** A string's value, or a number's spelling in the document. */
  std::string text;
  std::vector<Node> elements;
  /** In document order; a repeated key keeps its first place and its last value. */
  std::vector<Member> members;
};

struct Member {
  std::string key;
  Node value;
};

/** Deeper documents are refused: the parser recurses once per level. */
inline constexpr int kMaxDepth = 256;

/** Parses a whole document; on failure returns nullptr and sets @p error. */
std::shared_ptr<const Node> parseDocument(std::string_view text, std::string& error);

/** Appends the compact JSON text of @p node. */
void appendNode(std::string& out, const Node& node);

}  // namespace abx::sdk::json_detail
