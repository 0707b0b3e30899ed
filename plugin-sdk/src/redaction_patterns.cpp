// The scanner: a bigram bitmap rejects almost every position with one table
// lookup, so texts without secrets or token prefixes cost one pass and one
// copy; only candidate positions run the (short) matchers below.
#include "abx/sdk/redaction_patterns.h"

#include <algorithm>
#include <array>

#include "abx/sdk/secret_spellings.h"

namespace abx::sdk {
namespace {

using Table = std::array<bool, 256>;

constexpr bool isAlnum(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

constexpr Table makeTable(std::string_view extra) {
  Table t{};
  for (int c = 0; c < 256; ++c) t[c] = isAlnum(static_cast<unsigned char>(c));
  for (char c : extra) t[static_cast<unsigned char>(c)] = true;
  return t;
}

constexpr std::array<Table, 4> kAlphabets = {
    makeTable("_-"),       // sk_key
    makeTable(""),         // alnum
    makeTable("_"),        // github_pat
    makeTable("._~+/=-"),  // http_token
};

/** The shortest text that decides the longest token shape (github_pat_ + 20). */
constexpr std::size_t kLongestTokenShape = 31;

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

enum class Step { ok, fail, more };

// The steps of a token shape. "more": the text ended before the step could be
// decided and more may come (at_end false).
Step word(std::string_view text, std::size_t& pos, std::string_view w, bool ignore_case,
          bool at_end) {
  for (char expected : w) {
    if (pos >= text.size()) return at_end ? Step::fail : Step::more;
    const char c = ignore_case ? lower(text[pos]) : text[pos];
    if (c != expected) return Step::fail;
    ++pos;
  }
  return Step::ok;
}

Step oneOf(std::string_view text, std::size_t& pos, std::string_view set, bool at_end) {
  if (pos >= text.size()) return at_end ? Step::fail : Step::more;
  if (set.find(text[pos]) == std::string_view::npos) return Step::fail;
  ++pos;
  return Step::ok;
}

Step optionalByte(std::string_view text, std::size_t& pos, char b, bool at_end) {
  if (pos >= text.size()) return at_end ? Step::ok : Step::more;
  if (text[pos] == b) ++pos;
  return Step::ok;
}

Step blanks(std::string_view text, std::size_t& pos, std::size_t min, std::size_t max,
            bool at_end) {
  std::size_t count = 0;
  while (count < max) {
    if (pos >= text.size()) {
      if (!at_end) return Step::more;
      break;
    }
    if (text[pos] != ' ' && text[pos] != '\t') break;
    ++pos;
    ++count;
  }
  return count >= min ? Step::ok : Step::fail;
}

}  // namespace

bool inTokenAlphabet(TokenAlphabet alphabet, char c) {
  return kAlphabets[static_cast<std::size_t>(alphabet)][static_cast<unsigned char>(c)];
}

RedactionPatterns::RedactionPatterns() : RedactionPatterns(std::vector<std::string>{}) {}

RedactionPatterns::RedactionPatterns(const std::vector<std::string>& secrets,
                                     std::size_t min_length) {
  for (std::string_view start : {"sk", "gh", "gi", "be", "bE", "Be", "BE", "x-", "X-"}) {
    start_bigrams_.set(bigram(start[0], start[1]));
    start_bytes_.set(static_cast<unsigned char>(start[0]));
  }
  longest_ = kLongestTokenShape;
  for (const auto& secret : secrets) {
    if (secret.size() < min_length) continue;
    for (auto& spelling : secretSpellings(secret)) addSpelling(std::move(spelling));
  }
  for (auto& [key, indexes] : by_bigram_)
    std::stable_sort(indexes.begin(), indexes.end(), [this](std::size_t a, std::size_t b) {
      return spellings_[a].size() > spellings_[b].size();
    });
}

void RedactionPatterns::addSpelling(std::string spelling) {
  if (std::find(spellings_.begin(), spellings_.end(), spelling) != spellings_.end()) return;
  const auto key = bigram(spelling[0], spelling[1]);
  start_bigrams_.set(key);
  start_bytes_.set(static_cast<unsigned char>(spelling[0]));
  longest_ = std::max(longest_, spelling.size());
  by_bigram_[key].push_back(spellings_.size());
  spellings_.push_back(std::move(spelling));
}

RedactionPatterns::Match RedactionPatterns::matchSpellings(std::string_view text, std::size_t i,
                                                           bool at_end) const {
  const std::size_t avail = text.size() - i;
  if (avail == 1) {  // only reachable with at_end false: the text's last byte
    for (const auto& s : spellings_)
      if (s[0] == text[i]) return {Outcome::need_more, 0, 0, std::nullopt};
    return {};
  }
  const auto bucket = by_bigram_.find(bigram(text[i], text[i + 1]));
  if (bucket == by_bigram_.end()) return {};
  Match best;
  bool pending = false;
  for (std::size_t index : bucket->second) {  // longest first
    const std::string& s = spellings_[index];
    if (avail >= s.size()) {
      if (best.outcome == Outcome::none && text.compare(i, s.size(), s) == 0) {
        best.outcome = Outcome::match;
        best.length = s.size();
      }
    } else if (!at_end && text.substr(i) == std::string_view(s).substr(0, avail)) {
      pending = true;  // a longer spelling may still complete here
    }
  }
  if (pending) return {Outcome::need_more, 0, 0, std::nullopt};
  return best;
}

RedactionPatterns::Match RedactionPatterns::matchTokens(std::string_view text, std::size_t i,
                                                        bool at_end) const {
  // The value part of a shape: a maximal run of @p alphabet bytes of at least @p min.
  auto value = [&](std::size_t start, TokenAlphabet alphabet, std::size_t min,
                   std::size_t keep) -> Match {
    std::size_t end = start;
    while (end < text.size() && inTokenAlphabet(alphabet, text[end])) ++end;
    const std::size_t run = end - start;
    if (end == text.size() && !at_end) {
      if (run < min) return {Outcome::need_more, 0, 0, std::nullopt};
      return {Outcome::match, end - i, keep, alphabet};
    }
    if (run < min) return {};
    return {Outcome::match, end - i, keep, std::nullopt};
  };
  auto more = [](Step s) {
    return s == Step::more ? Match{Outcome::need_more, 0, 0, std::nullopt} : Match{};
  };

  std::size_t pos = i;
  switch (text[i]) {
    case 's': {
      if (auto s = word(text, pos, "sk-", false, at_end); s != Step::ok) return more(s);
      return value(pos, TokenAlphabet::sk_key, 16, 0);
    }
    case 'g': {
      if (auto s = word(text, pos, "gh", false, at_end); s == Step::ok) {
        if (auto t = oneOf(text, pos, "pousr", at_end); t != Step::ok) return more(t);
        if (auto t = word(text, pos, "_", false, at_end); t != Step::ok) return more(t);
        return value(pos, TokenAlphabet::alnum, 20, 0);
      } else if (s == Step::more) {
        return {Outcome::need_more, 0, 0, std::nullopt};
      }
      pos = i;
      if (auto s = word(text, pos, "github_pat_", false, at_end); s != Step::ok) return more(s);
      return value(pos, TokenAlphabet::github_pat, 20, 0);
    }
    case 'b':
    case 'B': {
      if (auto s = word(text, pos, "bearer", true, at_end); s != Step::ok) return more(s);
      if (auto s = blanks(text, pos, 1, 4, at_end); s != Step::ok) return more(s);
      return value(pos, TokenAlphabet::http_token, 8, pos - i);
    }
    case 'x':
    case 'X': {
      // x-api-key: v | "x-api-key":"v" | \"x-api-key\": \"v\" | x-api-key=v
      Step s = word(text, pos, "x-api-key", true, at_end);
      if (s == Step::ok) s = optionalByte(text, pos, '\\', at_end);
      if (s == Step::ok) s = optionalByte(text, pos, '"', at_end);
      if (s == Step::ok) s = blanks(text, pos, 0, 4, at_end);
      if (s == Step::ok) s = oneOf(text, pos, ":=", at_end);
      if (s == Step::ok) s = blanks(text, pos, 0, 4, at_end);
      if (s == Step::ok) s = optionalByte(text, pos, '\\', at_end);
      if (s == Step::ok) s = optionalByte(text, pos, '"', at_end);
      if (s != Step::ok) return more(s);
      return value(pos, TokenAlphabet::http_token, 6, pos - i);
    }
    default:
      return {};
  }
}

RedactionPatterns::Match RedactionPatterns::matchAt(std::string_view text, std::size_t i,
                                                    int prev_byte, bool at_end) const {
  const Match literal = matchSpellings(text, i, at_end);
  const bool word_boundary = prev_byte < 0 || !isAlnum(static_cast<unsigned char>(prev_byte));
  const Match token = word_boundary ? matchTokens(text, i, at_end) : Match{};
  if (literal.outcome == Outcome::need_more || token.outcome == Outcome::need_more)
    return {Outcome::need_more, 0, 0, std::nullopt};
  // On equal length the token wins: an open token run may still grow, and the
  // batch and streaming paths must decide alike.
  if (token.outcome == Outcome::match &&
      (literal.outcome != Outcome::match || token.length >= literal.length)) {
    // A label that spells a secret ("Bearer" registered as one) is not kept.
    // The label is whole once the token matched, so both paths decide alike.
    if (token.keep > 0 && spellsASecret(text.substr(i, token.keep)))
      return {token.outcome, token.length, 0, token.open_run};
    return token;
  }
  return literal;
}

bool RedactionPatterns::spellsASecret(std::string_view label) const {
  for (std::size_t j = 0; j + 1 < label.size(); ++j) {
    const auto bucket = by_bigram_.find(bigram(label[j], label[j + 1]));
    if (bucket == by_bigram_.end()) continue;
    for (std::size_t index : bucket->second)
      if (label.substr(j).starts_with(spellings_[index])) return true;
  }
  return false;
}

RedactionPatterns::ScanResult RedactionPatterns::scan(std::string_view text, int prev_byte,
                                                      bool at_end, std::string& out) const {
  ScanResult result;
  const std::size_t n = text.size();
  std::size_t copied = 0;
  std::size_t i = 0;
  while (i < n) {
    const bool candidate = i + 1 < n ? start_bigrams_[bigram(text[i], text[i + 1])]
                                     : !at_end && start_bytes_[static_cast<unsigned char>(text[i])];
    if (!candidate) {
      ++i;
      continue;
    }
    const int prev = i == 0 ? prev_byte : static_cast<unsigned char>(text[i - 1]);
    const Match m = matchAt(text, i, prev, at_end);
    if (m.outcome == Outcome::none) {
      ++i;
      continue;
    }
    out.append(text.substr(copied, i - copied));
    if (m.outcome == Outcome::need_more) {
      result.decided = i;
      return result;
    }
    out.append(text.substr(i, m.keep));
    out.append(kRedacted);
    i += m.length;
    copied = i;
    result.open_run = m.open_run;  // set only when the match reached the end of the text
  }
  out.append(text.substr(copied));
  result.decided = n;
  return result;
}

}  // namespace abx::sdk
