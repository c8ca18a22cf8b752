// JsonTypeName: how a simdjson on-demand JSON type reads in an error message
// ("expected a string, got a number"), shared by every simdjson reader (the
// snapshot reader, Kubernetes list pages).
#pragma once

#include <simdjson.h>

namespace kubeon::model {

inline const char* JsonTypeName(simdjson::ondemand::json_type t) {
  using T = simdjson::ondemand::json_type;
  switch (t) {
    case T::array: return "an array";
    case T::object: return "an object";
    case T::number: return "a number";
    case T::string: return "a string";
    case T::boolean: return "a boolean";
    case T::null: return "null";
  }
  return "a value";
}

}  // namespace kubeon::model
