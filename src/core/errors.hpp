#pragma once
// Typed errors of the library. The CLI maps each to a one-line message and an exit code
// in one place (src/cli/main.cpp); nothing below the CLI prints or exits.
#include <stdexcept>
#include <string>

namespace readbench {

// Bad usage or bad input: exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output (a report file, stdout) that cannot be written. An InputError, so exit 2; `run`
// turns one that happens after measuring into exit 3.
class OutputError : public InputError {
 public:
  using InputError::InputError;
};

// Fit guards. Each names the offending value.
class FitError : public InputError {
 public:
  using InputError::InputError;
};
class TooFewPoints : public FitError {
 public:
  using FitError::FitError;
};
class TooFewDistinctLengths : public FitError {
 public:
  using FitError::FitError;
};
class BadLength : public FitError {
 public:
  using FitError::FitError;
};
class BadTime : public FitError {
 public:
  using FitError::FitError;
};

// A gate that cannot judge what it was given (an incomplete report): exit code 4.
class CannotJudge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend that cannot run here (no driver, no device, built without CUDA).
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend call that failed while running (a CUDA error, an allocation that cannot fit).
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace readbench
