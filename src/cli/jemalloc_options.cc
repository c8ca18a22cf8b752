// See jemalloc_options.h.  Compiled only into targets linked with jemalloc
// (CMake's kubeon_use_jemalloc), which reads this symbol when it starts.
#include "cli/jemalloc_options.h"

extern "C" {
// NOLINTNEXTLINE: jemalloc's documented name, read before main().
extern const char* malloc_conf;
const char* malloc_conf = kubeon::cli::kJemallocOptions;
}
