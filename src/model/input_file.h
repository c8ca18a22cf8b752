// Opening the input files named on the command line (--cluster, --prices).
//
// Contract:
//  - A regular file, or a pipe/FIFO/socket (`--cluster <(kubectl get ... -o json)`,
//    `--cluster /dev/stdin`), is read whole; a pipe is read until its end.
//  - A directory, a character or block device (/dev/zero, /dev/sda), a
//    missing or unreadable path is an error naming the path, what the file
//    was for and the reason ("x: cannot read the cluster snapshot: Is a
//    directory"), never an abort or an endless read.
//  - Errors as values; the only I/O is reading the one file.
#pragma once

#include <string>
#include <string_view>

#include "model/status.h"

namespace kubeon::model {

struct InputFile {
  bool regular = false;  // a regular file (size known up front), else a pipe read to its end
  size_t size = 0;       // the size when regular
};

// Checks that `path` can be read as an input file of the kind `what`
// ("cluster snapshot", "prices file").
Result<InputFile> OpenableInput(const std::string& path, std::string_view what);

// Reads the whole file after OpenableInput's checks.
Result<std::string> ReadInputFile(const std::string& path, std::string_view what);

// Reads exactly `size` bytes of `path` into `out` (a regular file the caller
// has checked with OpenableInput); a short read (the file shrank) is an error.
Status ReadRegularInto(const std::string& path, std::string_view what, char* out, size_t size);

}  // namespace kubeon::model
