// TextParser: plain stdout lines -> one streamed assistant message.
#include "text_parser.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

void TextParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  ParsedEvent e;
  e.kind = ParsedKind::text_delta;
  e.id = kItemId;
  if (any_line_) e.text = "\n";
  e.text.append(line);
  text_ += e.text;
  any_line_ = true;
  out.push_back(std::move(e));
}

void TextParser::finish(int exit_code, std::vector<ParsedEvent>& out) {
  if (any_line_) {
    ParsedEvent m;
    m.kind = ParsedKind::message;
    m.id = kItemId;
    m.text = text_;
    out.push_back(std::move(m));
  }
  ParsedEvent r;
  r.kind = ParsedKind::result;
  r.ok = exit_code == 0;
  r.text = text_;
  out.push_back(std::move(r));
}

}  // namespace abx::plugins::adapters
