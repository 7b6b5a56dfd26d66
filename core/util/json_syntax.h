// Where a JSON document first breaks the grammar (RFC 8259), for error messages: simdjson's DOM
// parser says what is wrong but not where, and its On-Demand front end is not safe on malformed
// documents, so the importers call this on their error path only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ls {

struct JsonSyntaxError {
  size_t offset = 0;     ///< byte offset of the first offending byte (the size for a truncated document)
  size_t line = 1;       ///< 1-based
  size_t column = 1;     ///< 1-based, in bytes
  std::string expected;  ///< "',' or '}' after an object member", "a closing '\"'", ...
};

/// The first place `json` is not valid JSON, or nothing when the grammar holds (a parser may
/// still reject it, e.g. for invalid UTF-8 or a number out of range). Nesting deeper than
/// `maxDepth` is reported as an error there. Never recurses more than `maxDepth` deep.
std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view json, size_t maxDepth = 1024);

/// "invalid JSON at line 3, column 14: expected ',' or ']' in an array (<parserMessage>)", or
/// "invalid JSON: <parserMessage>" when no grammar error is found.
std::string describeJsonError(std::string_view json, std::string_view parserMessage);

}  // namespace ls
