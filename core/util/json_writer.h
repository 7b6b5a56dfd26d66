// Minimal streaming JSON writer (escaping, commas, pretty indentation) for summaries and exports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

/// Builds a JSON document into a string. Usage:
///   JsonWriter w; w.beginObject(); w.key("n"); w.value(3); w.endObject(); w.str();
/// Non-finite doubles are written as null (JSON has no inf/nan).
class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(int64_t(v)); }
  JsonWriter& value(unsigned v) { return value(uint64_t(v)); }
  JsonWriter& value(double v);
  JsonWriter& null();
  /// key + value in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  const std::string& str() const { return out_; }
  static std::string escape(std::string_view s);

 private:
  void prefix();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool afterKey_ = false;
  bool pretty_;
};

}  // namespace ls
