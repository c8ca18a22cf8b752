// Built only when kubeon-gpu is linked with jemalloc (CMakeLists.txt): the
// options of jemalloc_options.h reach the allocator of a target that
// kubeon_use_jemalloc() set up, as they reach kubeon-gpu's.
#include "cli/jemalloc_options.h"

#include <jemalloc/jemalloc.h>

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace kubeon::cli {
namespace {

// The value jemalloc runs with for option `name` ("thp", "narenas"), as text.
std::string Running(const std::string& name) {
  const std::string ctl = "opt." + name;
  if (name == "narenas") {
    unsigned n = 0;
    size_t size = sizeof(n);
    if (mallctl(ctl.c_str(), &n, &size, nullptr, 0) != 0) return "<no " + ctl + ">";
    return std::to_string(n);
  }
  const char* text = nullptr;
  size_t size = sizeof(text);
  if (mallctl(ctl.c_str(), &text, &size, nullptr, 0) != 0 || text == nullptr) return "<no " + ctl + ">";
  return text;
}

TEST(JemallocOptionsTest, TheAllocatorRunsWithEveryOption) {
  std::istringstream options(kJemallocOptions);
  std::string option;
  int checked = 0;
  while (std::getline(options, option, ',')) {
    const size_t colon = option.find(':');
    ASSERT_NE(colon, std::string::npos) << option;
    const std::string name = option.substr(0, colon);
    ASSERT_TRUE(name == "thp" || name == "narenas") << "no check for option " << name << " yet";
    EXPECT_EQ(Running(name), option.substr(colon + 1)) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace kubeon::cli
