// Status and Result<T>: how every SDK interface reports failure without
// throwing across the plugin boundary.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "abx/sdk/version.h"

namespace abx::sdk {

/**
 * Success, or a failure with a human-readable message and an exception-style
 * type name ("ValueError", "RuntimeError", ...) that ends up in error bodies.
 */
class ABX_SDK_API Status {
 public:
  Status() = default;
  static Status ok() { return {}; }
  static Status error(std::string message, std::string type = "RuntimeError") {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    s.type_ = std::move(type);
    return s;
  }
  bool isOk() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& type() const noexcept { return type_; }

 private:
  bool ok_ = true;
  std::string message_;
  std::string type_;
};

/** A value of T, or the Status that explains why there is none. */
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {}  // NOLINT
  bool isOk() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return isOk(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  /** The failure; only valid when !isOk(). */
  const Status& status() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace abx::sdk
