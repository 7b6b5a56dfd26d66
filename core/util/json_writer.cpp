// Minimal streaming JSON writer.
#include "core/util/json_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace ls {

std::string JsonWriter::escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  o += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) o += fmt::format("\\u{:04x}", c);
        else o += char(c);
    }
  }
  o += '"';
  return o;
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(first_.size() * 2, ' ');
}

void JsonWriter::prefix() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::beginObject() {
  prefix();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endObject() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  return *this;
}
JsonWriter& JsonWriter::beginArray() {
  prefix();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endArray() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
  prefix();
  out_ += escape(k);
  out_ += pretty_ ? ": " : ":";
  afterKey_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  prefix();
  out_ += escape(s);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  prefix();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::value(int64_t v) {
  prefix();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t v) {
  prefix();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  prefix();
  if (!std::isfinite(v)) out_ += "null";
  else out_ += fmt::format("{}", v);
  return *this;
}
JsonWriter& JsonWriter::null() {
  prefix();
  out_ += "null";
  return *this;
}

}  // namespace ls
