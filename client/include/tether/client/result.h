// Result<T>: the value of a call, or the Error that prevented it. Expected failures of remote
// calls (a bad spec, an unknown name, an unreachable server) are values, not exceptions.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <variant>

#include "tether/client/error.h"

namespace tether::client {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}    // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  // The value; calling these on an error is a programming mistake and aborts with the error.
  [[nodiscard]] const T& value() const& { return std::get<T>(CheckOk()); }
  [[nodiscard]] T& value() & { return std::get<T>(CheckOk()); }
  [[nodiscard]] T&& value() && { return std::get<T>(std::move(CheckOk())); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // The error; an OK Error (code OK, empty message) when the call succeeded.
  [[nodiscard]] const Error& error() const {
    static const Error kNone;
    return ok() ? kNone : std::get<Error>(state_);
  }

 private:
  std::variant<T, Error>& CheckOk() const {
    if (!ok()) {
      std::fprintf(stderr, "tether::client::Result::value() on an error: %s\n",
                   std::get<Error>(state_).ToString().c_str());
      std::abort();
    }
    return const_cast<std::variant<T, Error>&>(state_);
  }

  std::variant<T, Error> state_;
};

// The value of calls that return nothing (DeleteModel, DeleteSession).
struct Done {};

}  // namespace tether::client
