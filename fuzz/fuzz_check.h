// Shared by the fuzz harnesses (fuzz/*_fuzz.cc): the invariant check that
// turns a broken contract into a crash the fuzzer (or the replay runner)
// reports, and the small predicates the harnesses share.
//
// A harness must never return quietly from a broken invariant: FUZZ_CHECK
// prints the condition, the harness's file:line and a detail string to
// stderr and aborts, which libFuzzer records as a crash with its input and
// replay_main.cc reports as a failed corpus file.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace kubeon::fuzz {

[[noreturn]] inline void Fail(const char* file, int line, const char* condition, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n  %s\n", file, line, condition, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

// True when `text` is one non-empty line: no '\n' or '\r' anywhere in it.
inline bool IsOneLine(std::string_view text) {
  return !text.empty() && text.find_first_of("\r\n") == std::string_view::npos;
}

// The bytes of the fuzz input as text (the readers take any bytes).
inline std::string_view AsText(const unsigned char* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Runs `body`; an exception escaping it is a broken invariant (the readers
// return errors as values).
template <typename Body>
void NoExceptionEscapes(const Body& body) {
  try {
    body();
  } catch (const std::exception& e) {
    Fail(__FILE__, __LINE__, "no exception escapes", e.what());
  } catch (...) {
    Fail(__FILE__, __LINE__, "no exception escapes", "an exception not derived from std::exception");
  }
}

}  // namespace kubeon::fuzz

// FUZZ_CHECK(cond, detail): aborts with `detail` (a std::string expression,
// evaluated only on failure) when `cond` is false.
#define FUZZ_CHECK(cond, detail)                                         \
  do {                                                                   \
    if (!(cond)) ::kubeon::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)
