// Reads a cluster snapshot file item by item, in memory independent of the
// file's size (a 1 GB List must not take GBs).
//
// The file is read in fixed-size chunks.  A structural scan that knows JSON
// strings and escapes walks the top-level object: it finds "kind" and the
// extent of each element of "items" (64 bytes at a time where no escape
// is near, model/json_block_scan.h; byte by byte elsewhere), and hands each
// item alone to SnapshotItemReader (snapshot_json.h: simdjson on-demand, the
// same field reader as ParseClusterJson).  Only the item being read is held, never the
// whole text.
//
// Contract:
//  - The same Cluster as ParseClusterJson on the same text, and the same
//    errors for a snapshot with one defect: item index and field path
//    ("cluster.json: items[12] (Pod ml/a): spec.replicas: ..."), "not valid
//    JSON at line L, column C: ..." (the line is found by reading the file
//    again up to the error).  With several defects the first in file order
//    is reported (ParseClusterJson may report a later malformed string
//    first: its index of the whole text is built before any item is read).
//  - A file that ends inside the top-level object is "truncated: the file
//    ends inside items[N]" (or "... before the top-level object is closed").
//  - Caps: one item, or one top-level value other than "items", larger than
//    kMaxSnapshotItemBytes is an error naming it; a file without "items" (a
//    single object) is read whole under the same cap.
//  - Memory: the read buffer (kSnapshotChunkBytes, grown to the largest
//    item), simdjson's index of one item, and the Cluster.
//  - On one thread the file is read once.  Twice only when an item has no
//    "kind" and the List's own kind comes after "items" (then the List's
//    kind names the items' kind, as for a "PodList"), or to locate an error.
//  - Threads (StreamOptions::threads > 1, a source that can be reopened, at
//    least min_part_bytes per part, at most max_parts parts): the items are
//    cut into parts by where they start (part k: the items starting in
//    [k, k+1) * size / parts).  Every part scans the file from its start
//    (structure only before its range) with its own reader and Cluster; the
//    parts are joined in file order.  The result is the one-thread reader's,
//    errors included: when a part fails, or two parts each hold a
//    ClusterPolicy or the same object, the file is read again on one thread
//    (bad input only), so no message depends on how the items were cut.
//    Memory: a window and an item index per part, and the parts' Clusters
//    (which become the result).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "model/cluster.h"
#include "model/status.h"

namespace kubeon::model {

// Bytes read from the file at a time.
inline constexpr size_t kSnapshotChunkBytes = size_t{1} << 20;
// The largest item (or top-level value) accepted.  The API server stores no
// object above etcd's 1.5 MiB request limit; 64 MiB leaves room for any
// re-indented or hand-made snapshot and still bounds the memory.
inline constexpr size_t kMaxSnapshotItemBytes = size_t{64} << 20;

// Where the bytes come from.  Read fills up to n bytes and returns how many
// (0 at the end); Rewind goes back to the first byte; SizeHint says how many
// bytes to expect.
class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;
  virtual Result<size_t> Read(char* out, size_t n) = 0;
  virtual Status Rewind() = 0;
  // The bytes Read returns in all, when known before reading (a regular
  // file's size); 0 when not (a pipe).  Only a capacity hint: a wrong value
  // changes how the cluster's vectors grow, never what is read.
  virtual size_t SizeHint() const { return 0; }
  // Another source over the same bytes, read from the first, that may be
  // read on another thread while this one is (the reader's parts); nullptr
  // when there is none (a pipe).
  virtual std::unique_ptr<SnapshotSource> Reopen() const { return nullptr; }
};

// Below this many bytes a part of a file is not worth a thread: every part
// scans the bytes before its own, and a thread costs its start and a second
// simdjson parser.
inline constexpr size_t kMinSnapshotPartBytes = size_t{4} << 20;

// Parts at most, whatever the threads: every part scans the bytes before
// its own, so the scanning grows with the square of the parts (4 parts scan
// the file 2.5 times in all, by structure only).
inline constexpr size_t kMaxSnapshotParts = 4;

// How ReadClusterStream reads; the defaults are ReadClusterFile's.
struct StreamOptions {
  // Bytes read at a time (tests use tiny chunks so that every token crosses
  // a chunk boundary).  REQUIRES: > 0.
  size_t chunk_bytes = kSnapshotChunkBytes;
  size_t max_item_bytes = kMaxSnapshotItemBytes;
  // Threads reading items at once (the calling thread is one of them):
  // parts = min(threads, max_parts, SizeHint() / min_part_bytes), at least 1.
  int threads = 1;
  size_t min_part_bytes = kMinSnapshotPartBytes;
  size_t max_parts = kMaxSnapshotParts;
};

// Reads the snapshot at `path` (see the contract above) on up to `threads`
// threads.
Result<Cluster> ReadClusterFile(const std::string& path, int threads = 1);

// The reader behind ReadClusterFile over any source: `name` names it in
// errors.
Result<Cluster> ReadClusterStream(SnapshotSource* source, std::string_view name, const StreamOptions& options);
// The same with the default options but chunk and item cap.
// REQUIRES: chunk_bytes > 0.
Result<Cluster> ReadClusterStream(SnapshotSource* source, std::string_view name,
                                  size_t chunk_bytes = kSnapshotChunkBytes,
                                  size_t max_item_bytes = kMaxSnapshotItemBytes);

// ReadClusterStream over text held in memory (tests and benchmarks).
Result<Cluster> ReadClusterText(std::string_view text, std::string_view name, const StreamOptions& options);
Result<Cluster> ReadClusterText(std::string_view text, std::string_view name,
                                size_t chunk_bytes = kSnapshotChunkBytes,
                                size_t max_item_bytes = kMaxSnapshotItemBytes);

}  // namespace kubeon::model
