#include "shell_script.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace abx::plugins::process {
namespace {

using sdk::Result;
using sdk::Status;

struct Token {
  bool op = false;
  std::string text;
  bool fixed = true;    // no expansion of any kind
  bool quoted = false;  // some quoting: never a reserved word
};

Status cannot(const std::string& what) { return Status::error(what, "ValueError"); }

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Longest first, so "&&" wins over "&".
constexpr std::array<std::string_view, 26> kOperators = {
    ";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "&>", "||", "|&", "<<", "<&", "<>",
    "<(",  ">>",  ">&",  ">|",  ">(", "((", ";",  "&",  "|",  "<",  ">",  "(",  ")"};

bool isRedirection(std::string_view op) {
  return op == "<" || op == ">" || op == ">>" || op == "<&" || op == ">&" || op == "<>" ||
         op == ">|" || op == "&>" || op == "&>>" || op == "<<<";
}

/** PATH or a hook variable anywhere but in a plain read ($PATH, ${PATH}). */
std::optional<Status> mentionsHookName(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (!identChar(text[i]) || (i > 0 && identChar(text[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && identChar(text[end])) ++end;
    const std::string_view name = text.substr(i, end - i);
    if (name == "PATH" || isHookVariable(name)) {
      const bool plain_read =
          (i >= 1 && text[i - 1] == '$') ||
          (i >= 2 && text.substr(i - 2, 2) == "${" && end < text.size() && text[end] == '}');
      if (!plain_read) return cannot("it sets, unsets or names " + std::string(name));
    }
    i = end;
  }
  return std::nullopt;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Result<std::vector<Token>> run() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t') {
        flush();
        ++i_;
      } else if (c == '\n') {
        flush();
        tokens_.push_back({true, "\n"});
        ++i_;
      } else if (c == '#' && !in_word_) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '\\') {
        if (i_ + 1 >= s_.size()) return cannot("a trailing backslash");
        if (s_[i_ + 1] != '\n') append(s_[i_ + 1]), cur_.quoted = true;
        i_ += 2;
      } else if (c == '\'') {
        const auto close = s_.find('\'', i_ + 1);
        if (close == std::string_view::npos) return cannot("an unterminated quote");
        cur_.text.append(s_.substr(i_ + 1, close - i_ - 1));
        cur_.quoted = in_word_ = true;
        i_ = close + 1;
      } else if (c == '"') {
        if (auto s = doubleQuoted(); !s) return s;
      } else if (c == '$') {
        if (auto s = dollar(false); !s) return s;
      } else if (c == '`') {
        return cannot("command substitution ($(...) or `...`)");
      } else if (std::string_view(";&|<>()").find(c) != std::string_view::npos) {
        if (auto s = operatorToken(); !s) return s;
      } else {
        if (c == '*' || c == '?' || c == '[' || c == '{' || c == '}' ||
            (c == '~' && (!in_word_ || cur_.text.back() == '=' || cur_.text.back() == ':')))
          expands_ = true;
        append(c);
        ++i_;
      }
    }
    flush();
    return std::move(tokens_);
  }

 private:
  void append(char c) {
    cur_.text += c;
    in_word_ = true;
  }

  void flush() {
    if (in_word_) {
      // A lone { or } is a reserved word; elsewhere braces and globs expand.
      const bool brace_word = !cur_.quoted && (cur_.text == "{" || cur_.text == "}");
      if (expands_ && !brace_word) cur_.fixed = false;
      tokens_.push_back(std::move(cur_));
    }
    cur_ = Token{};
    in_word_ = expands_ = false;
  }

  Status doubleQuoted() {
    std::size_t j = i_ + 1;
    cur_.quoted = in_word_ = true;
    while (j < s_.size() && s_[j] != '"') {
      const char c = s_[j];
      if (c == '\\' && j + 1 < s_.size() &&
          std::string_view("$`\"\\\n").find(s_[j + 1]) != std::string_view::npos) {
        if (s_[j + 1] != '\n') cur_.text += s_[j + 1];
        j += 2;
      } else if (c == '`') {
        return cannot("command substitution ($(...) or `...`)");
      } else if (c == '$') {
        i_ = j;
        if (auto s = dollar(true); !s) return s;
        j = i_;
      } else {
        cur_.text += c;
        ++j;
      }
    }
    if (j >= s_.size()) return cannot("an unterminated quote");
    i_ = j + 1;
    return Status::ok();
  }

  // $name, ${...}, $'...', or what cannot be judged: $(...), $((...)), $[...].
  Status dollar(bool in_double_quotes) {
    const char next = i_ + 1 < s_.size() ? s_[i_ + 1] : ' ';
    if (next == '(')
      return cannot(i_ + 2 < s_.size() && s_[i_ + 2] == '('
                        ? "arithmetic expansion ($((...)))"
                        : "command substitution ($(...) or `...`)");
    if (next == '[') return cannot("arithmetic expansion ($[...])");
    std::size_t end = i_ + 1;
    if (next == '{') {
      int depth = 0;
      for (; end < s_.size(); ++end) {
        if (s_[end] == '{') ++depth;
        if (s_[end] == '}' && --depth == 0) break;
      }
      if (end >= s_.size()) return cannot("an unterminated ${...}");
      if (auto s = judgeBraced(s_.substr(i_ + 2, end - i_ - 2)); !s) return s;
      ++end;
    } else if (next == '\'' && !in_double_quotes) {  // bash's $'...' with backslash escapes
      end = i_ + 2;
      while (end < s_.size() && s_[end] != '\'') end += s_[end] == '\\' ? 2 : 1;
      if (end >= s_.size()) return cannot("an unterminated quote");
      ++end;
    } else if (identChar(next) ||
               std::string_view("@*#?$!-").find(next) != std::string_view::npos) {
      end = i_ + 2;
      if (identChar(next) && !std::isdigit(static_cast<unsigned char>(next)))
        while (end < s_.size() && identChar(s_[end])) ++end;
    } else {
      append('$');  // a lone dollar is literal
      ++i_;
      return Status::ok();
    }
    cur_.text.append(s_.substr(i_, end - i_));
    cur_.fixed = false;
    in_word_ = true;
    i_ = end;
    return Status::ok();
  }

  // ${!x} and ${x[...]} and ${x:offset} evaluate text as a name or as
  // arithmetic, which in bash can run a command hidden in a variable;
  // ${x@P} expands it as a prompt (with command substitution).
  static Status judgeBraced(std::string_view inner) {
    if (inner.find("$(") != std::string_view::npos || inner.find('`') != std::string_view::npos)
      return cannot("command substitution ($(...) or `...`)");
    if (inner.find("$[") != std::string_view::npos) return cannot("arithmetic expansion ($[...])");
    if (inner.starts_with('!') || inner.find('[') != std::string_view::npos ||
        inner.ends_with("@P"))
      return cannot("an indirect or computed expansion (${!x}, ${x[...]}, ${x@P})");
    // The parameter: a name, digits, or one special character.
    std::size_t name = 0;
    if (!inner.empty() && std::string_view("@*#?-$!").find(inner[0]) != std::string_view::npos)
      name = 1;
    else
      while (name < inner.size() && identChar(inner[name])) ++name;
    if (name < inner.size() && inner[name] == ':' &&
        (name + 1 >= inner.size() ||
         std::string_view("-=+?").find(inner[name + 1]) == std::string_view::npos))
      return cannot("a substring expansion (${x:offset})");
    return Status::ok();
  }

  Status operatorToken() {
    // "2>" and bash's "{fd}>": the descriptor belongs to the redirection.
    const char c = s_[i_];
    if (in_word_ && (c == '<' || c == '>') && !cur_.quoted &&
        (std::all_of(cur_.text.begin(), cur_.text.end(),
                     [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }) ||
         (cur_.text.size() > 2 && cur_.text.front() == '{' && cur_.text.back() == '}'))) {
      cur_ = Token{};
      in_word_ = expands_ = false;
    }
    flush();
    for (auto op : kOperators) {
      if (s_.substr(i_, op.size()) != op) continue;
      if (op == "<(" || op == ">(") return cannot("process substitution (<(...) or >(...))");
      if (op == "<<" || op == "<<-") return cannot("a here-document (<<)");
      if (op == "((") return cannot("an arithmetic command ((...))");
      tokens_.push_back({true, std::string(op)});
      i_ += op.size();
      return Status::ok();
    }
    return cannot("an unknown operator");
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::vector<Token> tokens_;
  Token cur_;
  bool in_word_ = false;
  bool expands_ = false;
};

bool isAssignment(const Token& t) {
  if (t.op || t.text.empty() || std::isdigit(static_cast<unsigned char>(t.text[0]))) return false;
  std::size_t i = 0;
  while (i < t.text.size() && identChar(t.text[i])) ++i;
  if (i == 0 || i >= t.text.size()) return false;
  if (t.text[i] == '+' && i + 1 < t.text.size() && t.text[i + 1] == '=') return true;
  return t.text[i] == '=' || t.text[i] == '[';  // a[...]=... is refused by the caller
}

/**
 * Tokens to simple commands. The grammar is followed far enough to know
 * which words are commands: reserved words at a command's start, for/select
 * headers, case subjects and patterns, function definitions, redirection
 * targets. Anything else is a command word, so it is judged.
 */
class ShellWalker {
 public:
  explicit ShellWalker(const std::vector<Token>& tokens) : t_(tokens) {}

  Result<ShellScript> run() {
    for (i_ = 0; i_ < t_.size(); ++i_) {
      const Token& tok = t_[i_];
      auto s = tok.op ? onOperator(tok.text) : onWord(tok);
      if (!s) return s;
    }
    finish();
    return std::move(script_);
  }

 private:
  enum class Mode { command, for_header, case_subject, case_in, case_pattern, function_name };

  void finish() {
    if (!words_.empty()) script_.commands.push_back({std::move(words_)});
    words_.clear();
    at_start_ = true;
  }

  Status onOperator(const std::string& op) {
    const bool separator =
        op == ";" || op == "&" || op == "&&" || op == "||" || op == "|" || op == "|&" || op == "\n";
    if (mode_ == Mode::for_header) {
      if (op != ";" && op != "\n") return cannot("an unusual for loop");
      mode_ = Mode::command;
      at_start_ = true;
      return Status::ok();
    }
    if (mode_ == Mode::case_pattern) {
      if (op == ")")
        mode_ = Mode::command, at_start_ = true;
      else if (op != "|" && op != "(" && op != "\n")
        return cannot("an unusual case pattern");
      return Status::ok();
    }
    if (mode_ == Mode::case_subject || mode_ == Mode::case_in) {
      if (op != "\n") return cannot("an unusual case statement");
      return Status::ok();
    }
    if (separator || op == ")") {
      finish();
      return Status::ok();
    }
    if (op == ";;" || op == ";&" || op == ";;&") {
      finish();
      if (case_depth_ > 0) mode_ = Mode::case_pattern;
      return Status::ok();
    }
    if (op == "(") {
      if (!words_.empty()) {  // name() body: a function definition
        if (words_.size() != 1 || !words_[0].fixed || i_ + 1 >= t_.size() || t_[i_ + 1].text != ")")
          return cannot("an unusual use of '('");
        script_.functions.push_back(words_[0].text);
        words_.clear();
        ++i_;
      }
      at_start_ = true;
      return Status::ok();
    }
    if (isRedirection(op)) {
      if (i_ + 1 >= t_.size() || t_[i_ + 1].op) return cannot("a redirection without a target");
      ++i_;  // the target is a file name, not a command
      return Status::ok();
    }
    return cannot("the operator " + op);
  }

  Status onWord(const Token& tok) {
    switch (mode_) {
      case Mode::for_header:
        if (!tok.quoted && tok.text == "do") mode_ = Mode::command, at_start_ = true;
        return Status::ok();
      case Mode::case_subject:
        mode_ = Mode::case_in;
        return Status::ok();
      case Mode::case_in:
        if (tok.quoted || tok.text != "in") return cannot("an unusual case statement");
        mode_ = Mode::case_pattern;
        return Status::ok();
      case Mode::case_pattern:
        if (!tok.quoted && tok.text == "esac")
          --case_depth_, mode_ = Mode::command, at_start_ = false;
        return Status::ok();
      case Mode::function_name:
        script_.functions.push_back(tok.text);
        mode_ = Mode::command;
        at_start_ = true;
        return Status::ok();
      case Mode::command:
        break;
    }
    if (at_start_ && words_.empty()) {
      if (!tok.quoted) {
        const std::string& w = tok.text;
        if (w == "if" || w == "then" || w == "else" || w == "elif" || w == "fi" || w == "do" ||
            w == "done" || w == "while" || w == "until" || w == "!" || w == "{" || w == "}" ||
            w == "esac")
          return Status::ok();
        if (w == "time") {
          if (i_ + 1 < t_.size() && !t_[i_ + 1].op && t_[i_ + 1].text == "-p") ++i_;
          return Status::ok();
        }
        if (w == "for" || w == "select") return mode_ = Mode::for_header, Status::ok();
        if (w == "case") return mode_ = Mode::case_subject, ++case_depth_, Status::ok();
        if (w == "function") return mode_ = Mode::function_name, Status::ok();
        if (w == "[[") return cannot("a [[ ... ]] test (its arithmetic can run commands)");
        if (w == "coproc") return cannot("coproc");
      }
      if (isAssignment(tok)) {
        if (tok.text.find('[') < tok.text.find('='))
          return cannot("an array element assignment (its index is arithmetic)");
        return Status::ok();
      }
    }
    words_.push_back(Word{tok.text, tok.fixed});
    at_start_ = false;
    return Status::ok();
  }

  const std::vector<Token>& t_;
  std::size_t i_ = 0;
  ShellScript script_;
  std::vector<Word> words_;
  bool at_start_ = true;
  Mode mode_ = Mode::command;
  int case_depth_ = 0;
};

}  // namespace

Result<ShellScript> parseShellScript(std::string_view text) {
  if (auto hook = mentionsHookName(text)) return *hook;
  auto lexed = Lexer(text).run();
  if (!lexed) return lexed.status();
  return ShellWalker(*lexed).run();
}

}  // namespace abx::plugins::process
