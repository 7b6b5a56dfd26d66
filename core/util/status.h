// Status and Result<T>: the error type that crosses module boundaries in core/.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ls {

/// Success or an error message. Messages name the file, node or pass and say what was expected.
class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string& message() const { return message_; }
  /// Prefixes context ("file.fxjson.json: ") to an error; no-op on success.
  Status withContext(const std::string& prefix) const {
    if (!failed_) return *this;
    return error(prefix + message_);
  }

 private:
  std::string message_;
  bool failed_ = false;
};

/// A value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool isOk() const { return v_.index() == 0; }
  explicit operator bool() const { return isOk(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const Status& status() const {
    static const Status kOk;
    return isOk() ? kOk : std::get<1>(v_);
  }
  const std::string& message() const { return status().message(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ls

#define LS_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::ls::Status ls_status_ = (expr);        \
    if (!ls_status_.isOk()) return ls_status_; \
  } while (0)

/// `LS_ASSIGN_OR_RETURN(x, expr);` evaluates `expr` (a Result<T>), returns its error Status
/// from the enclosing function, or declares `x` as a reference to the value (which lives as
/// long as the enclosing scope). The one error-or-value macro of the code base.
#define LS_ASSIGN_OR_RETURN(var, expr)         \
  auto var##_res = (expr);                     \
  if (!var##_res) return var##_res.status();   \
  auto& var = var##_res.value()
