// Loading every document of a YAML stream without hanging and without
// throwing.
//
// yaml-cpp 0.7's YAML::LoadAll loops forever, allocating a null document per
// turn, on some malformed streams, e.g. a stray ',' at the top level
// (jbeder/yaml-cpp issue #1040, fixed upstream by pull request #1319, after
// the 0.7 release Debian ships).  LoadYamlDocuments first walks the stream
// with an event handler and stops when a document makes no progress through
// the input, reporting a syntax error there; only a stream that passes is
// handed to LoadAll.  Both passes see the same documents, so the second one
// terminates too.
//
// Errors read "<file>:<line>: YAML syntax error at column <c>: <what>"
// (1-based line and column).  Empty documents come back as null nodes; an
// empty stream gives an empty vector.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

#include "model/status.h"

namespace kubeon::policy {

Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, std::string_view file);

}  // namespace kubeon::policy
