#include "shell_words.h"

namespace abx::plugins::process {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Inside double quotes a backslash is special only before these.
bool escapableInDoubleQuotes(char c) {
  return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n';
}

bool isPlainWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
}

}  // namespace

sdk::Result<std::vector<std::string>> splitShellWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (isBlank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= n) return sdk::Status::error("No escaped character", "ValueError");
      ++i;
      if (text[i] == '\n') continue;  // line continuation: joins, starts nothing
      word += text[i];
      in_word = true;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos)
        return sdk::Status::error("No closing quotation", "ValueError");
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < n && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < n && escapableInDoubleQuotes(text[j + 1])) {
          ++j;
          if (text[j] != '\n') word += text[j];
        } else {
          word += text[j];
        }
      }
      if (j >= n) return sdk::Status::error("No closing quotation", "ValueError");
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string quoteShellWord(std::string_view word) {
  if (!word.empty()) {
    bool plain = true;
    for (char c : word) plain = plain && isPlainWordChar(c);
    if (plain) return std::string(word);
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

std::string joinShellWords(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += quoteShellWord(w);
  }
  return out;
}

}  // namespace abx::plugins::process
