// One page of a Kubernetes list answer (the body of GET /api/v1/pods?limit=N)
// read with simdjson's on-demand API: no document tree is built; each item is
// handed on as the JSON text the server sent.
//
// Contract:
//  - Reads the page's kind, apiVersion, metadata.resourceVersion and
//    metadata.continue; other fields are skipped by structure.  "items" may be
//    absent or null (no items).
//  - A field of the wrong JSON type is an error naming its path
//    ("kind: expected a string, got a number", "items[3]: expected an object,
//    got an array"); text that is not JSON (or invalid UTF-8, or text after
//    the top-level object) is an error saying so.  Never an exception.
//  - An item nested deeper than `max_depth` levels (the item object itself is
//    level 1) is an error naming the item, checked before the item is handed
//    on, so callers may recurse over items without a stack risk.
//  - Items are handed to the sink in order, as views into `body`, valid only
//    during the call; a failed Status from the sink ends the parse with it.
//  - `body` is not changed, but its capacity may grow (simdjson reads up to
//    64 bytes past the text).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "model/json_nesting.h"
#include "model/status.h"

namespace kubeon::kube {

struct ListPageItem {
  size_t index = 0;         // position in this page's "items"
  std::string_view json;    // the object's text as served
  bool has_kind = false;    // the object has its own top-level "kind"
  bool has_api_version = false;
};

struct ListPage {
  std::string kind;              // e.g. "PodList", "" when absent
  std::string api_version;       // e.g. "v1"
  std::string resource_version;  // metadata.resourceVersion
  std::string continue_token;    // metadata.continue, "" on the last page
  size_t items = 0;              // items handed to the sink
};

using ListItemSink = std::function<Status(const ListPageItem& item)>;

Result<ListPage> ParseListPage(std::string& body, size_t max_depth, const ListItemSink& sink);

// Nesting is capped with model::FindNestingBeyond (model/json_nesting.h).
using model::FindNestingBeyond;

}  // namespace kubeon::kube
