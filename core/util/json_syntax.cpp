// JSON grammar check for error positions (see json_syntax.h).
#include "core/util/json_syntax.h"

#include <fmt/format.h>

namespace ls {

namespace {

class Checker {
 public:
  Checker(std::string_view s, size_t maxDepth) : s_(s), maxDepth_(maxDepth) {}

  std::optional<JsonSyntaxError> run() {
    ws();
    if (!value(0)) return error_;
    ws();
    if (i_ < s_.size()) fail("the end of the document after the top-level value");
    return error_;
  }

 private:
  bool fail(std::string expected) {
    JsonSyntaxError e;
    e.offset = i_;
    e.expected = std::move(expected);
    for (size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') ++e.line, e.column = 1;
      else ++e.column;
    }
    error_ = std::move(e);
    return false;
  }
  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }
  static bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

  bool value(size_t depth) {
    if (depth > maxDepth_) return fail(fmt::format("nesting at most {} deep", maxDepth_));
    if (i_ >= s_.size()) return fail("a value (the document ends here)");
    switch (s_[i_]) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default:
        if (s_[i_] == '-' || digit(s_[i_])) return number();
        return fail("a value (object, array, string, number, true, false or null)");
    }
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return fail(fmt::format("'{}'", word));
    i_ += word.size();
    return true;
  }
  bool number() {
    if (at('-')) ++i_;
    if (at('0')) ++i_;
    else if (i_ < s_.size() && digit(s_[i_])) while (i_ < s_.size() && digit(s_[i_])) ++i_;
    else return fail("a digit in a number");
    if (at('.')) {
      ++i_;
      if (!(i_ < s_.size() && digit(s_[i_]))) return fail("a digit after the decimal point");
      while (i_ < s_.size() && digit(s_[i_])) ++i_;
    }
    if (at('e') || at('E')) {
      ++i_;
      if (at('+') || at('-')) ++i_;
      if (!(i_ < s_.size() && digit(s_[i_]))) return fail("a digit in the exponent");
      while (i_ < s_.size() && digit(s_[i_])) ++i_;
    }
    return true;
  }
  bool string() {
    ++i_;  // the opening quote
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail("a closing '\"' (control characters must be escaped in strings)");
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) break;
        const char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (i_ + size_t(k) >= s_.size() || !hex(s_[i_ + size_t(k)])) {
              i_ += size_t(k);
              return fail("four hex digits after \\u");
            }
          i_ += 5;
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos)
          return fail("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)");
      }
      ++i_;
    }
    return fail("a closing '\"' (the document ends inside a string)");
  }
  bool array(size_t depth) {
    ++i_;
    ws();
    if (at(']')) return ++i_, true;
    for (;;) {
      if (!value(depth + 1)) return false;
      ws();
      if (at(']')) return ++i_, true;
      if (!at(',')) return fail("',' or ']' in an array");
      ++i_;
      ws();
    }
  }
  bool object(size_t depth) {
    ++i_;
    ws();
    if (at('}')) return ++i_, true;
    for (;;) {
      if (!at('"')) return fail("a member name in double quotes");
      if (!string()) return false;
      ws();
      if (!at(':')) return fail("':' after a member name");
      ++i_;
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (at('}')) return ++i_, true;
      if (!at(',')) return fail("',' or '}' after an object member");
      ++i_;
      ws();
    }
  }

  std::string_view s_;
  size_t maxDepth_;
  size_t i_ = 0;
  std::optional<JsonSyntaxError> error_;
};

}  // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view json, size_t maxDepth) {
  return Checker(json, maxDepth).run();
}

std::string describeJsonError(std::string_view json, std::string_view parserMessage) {
  auto e = findJsonSyntaxError(json);
  if (!e) return fmt::format("invalid JSON: {}", parserMessage);
  return fmt::format("invalid JSON at line {}, column {} (byte {}): expected {} ({})", e->line, e->column, e->offset,
                     e->expected, parserMessage);
}

}  // namespace ls
