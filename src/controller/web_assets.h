// The reviewer page's files (web/), compiled into the binary by
// cmake/embed_web.cmake, so the controller serves them without anything
// installed beside it.
//
// Invariants: every asset has a unique url ("/" for index.html,
// "/static/<file>" for the rest), a Content-Type with a charset for text, an
// ETag that is the quoted SHA-256 of its bytes (changes whenever the file
// does), and non-empty bytes.
#pragma once

#include <string_view>
#include <vector>

namespace kubeon::controller {

struct WebAsset {
  std::string_view url;           // "/" or "/static/app.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view etag;          // "\"<sha256 hex>\""
  std::string_view body;
};

// Every asset, in the order of web/'s file list (generated).
const std::vector<WebAsset>& WebAssets();

// The asset served at `url`, or nullptr.
const WebAsset* FindWebAsset(std::string_view url);

}  // namespace kubeon::controller
