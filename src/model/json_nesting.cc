// See json_nesting.h for the contract.
#include "model/json_nesting.h"

#include <cstring>

namespace kubeon::model {

size_t FindNestingBeyond(std::string_view json, size_t max_depth, size_t start_depth) {
  const char* const begin = json.data();
  const char* const end = begin + json.size();
  size_t depth = start_depth;
  for (const char* p = begin; p < end; ++p) {
    switch (*p) {
      case '"': {
        // The closing quote is the first one not preceded by an odd number
        // of backslashes.
        const char* from = p + 1;
        while (true) {
          const void* q = std::memchr(from, '"', static_cast<size_t>(end - from));
          if (q == nullptr) return std::string_view::npos;
          const char* quote = static_cast<const char*>(q);
          const char* b = quote;
          while (b > p + 1 && b[-1] == '\\') --b;
          from = quote + 1;
          if (((quote - b) & 1) == 0) break;
        }
        p = from - 1;
        break;
      }
      case '[':
      case '{':
        if (++depth > max_depth) return static_cast<size_t>(p - begin);
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

}  // namespace kubeon::model
