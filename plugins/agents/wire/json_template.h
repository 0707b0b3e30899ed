// JsonTemplate: the JSON text of one kind of event written once with
// sdk::JsonWriter, with holes for the values that change from event to event
// (a sequence number, a delta). Filling it is copying: the flood path
// (hundreds of thousands of text deltas a second) then pays for writing its
// keys once per item, not once per event.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {

class JsonTemplate {
 public:
  /** Writes a placeholder as the value of the member whose key() @p w has
   *  just written, and marks it as the next hole. */
  void hole(sdk::JsonWriter& w) {
    const std::size_t start = w.text().size();
    w.null();
    cut(w.text(), start);
    from_ = start + 4;  // "null"
  }
  /** Takes the text after the last hole; @p w has written the whole value. */
  void finish(const sdk::JsonWriter& w) { cut(w.text(), w.text().size()); }

  /** The fixed text before hole @p i (or, for i == holes, after the last one). */
  std::string_view part(std::size_t i) const { return parts_[i]; }
  /** The fixed text's length: what a filled event holds besides its holes' values. */
  std::size_t size() const { return size_; }
  bool empty() const { return parts_.empty(); }

 private:
  void cut(const std::string& text, std::size_t end) {
    parts_.push_back(text.substr(from_, end - from_));
    size_ += end - from_;
  }
  std::vector<std::string> parts_;
  std::size_t from_ = 0;
  std::size_t size_ = 0;
};

}  // namespace abx::plugins::agents
