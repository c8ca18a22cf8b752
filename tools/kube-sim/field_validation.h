// Server-side field validation (the fieldValidation query parameter of
// create, update and patch), as kube-apiserver does it for built-in kinds:
// fields the schema (openapi_schema.h) does not know are dropped from the
// object before it is stored, and
//   Ignore           drops them silently;
//   Warn (default)   adds one warning per field, `unknown field "spec.foo"`,
//                    sent as `Warning: 299 - "..."` headers;
//   Strict           rejects the request:
//     create / update: 400 BadRequest `<Kind> in version "<v>" cannot be
//       handled as a <Kind>: strict decoding error: unknown field "spce",
//       unknown field "spec.replcas"`;
//     patch: 422 Invalid with one cause on field "patch", as
//       `The request is invalid: patch: Invalid value: "<patch>": strict
//       decoding error: unknown field "spec.replcas"` in kubectl, where
//       <patch> is Go's %+v of the strategic merge patch map, or the
//       patched object's JSON for merge and JSON patches.
// Any other value is 400 BadRequest naming the supported values.
//
// Fields already present in the stored object (`existing`) are kept and
// not reported: objects loaded from a snapshot or written by kube-sim's
// own controllers are not re-validated on every client write.
#pragma once

#include <string>
#include <vector>

#include "api_error.h"
#include "resources.h"

namespace kubeon::kubesim {

enum class FieldValidation { kIgnore, kWarn, kStrict };

// "" is Warn, like a real server.
Outcome<FieldValidation> ParseFieldValidation(const std::string& value);

enum class WriteKind { kCreate, kUpdate, kStrategicPatch, kOtherPatch };

struct FieldCheck {
  FieldValidation directive = FieldValidation::kWarn;
  WriteKind write = WriteKind::kCreate;
  std::string patch_body;  // the request body, for strategic merge patches
};

// Prunes the unknown fields of `obj`, a `type` object served at `version`,
// and returns the warnings to send (empty unless Warn), or the Strict
// failure.  `existing` is the stored object, or null for a create.
Outcome<std::vector<std::string>> CheckFields(const ResourceType& type, const std::string& version,
                                              json& obj, const json& existing, const FieldCheck& check);

// The Warning header value a Go server sends for `text`: 299 - "<text>"
// with quotes and backslashes escaped.
std::string WarningHeaderValue(const std::string& text);

// Go's fmt %+v rendering of a JSON value decoded into interface{}
// (map[k:v ...] with sorted keys, [a b], <nil>); integers stay integers,
// as the apiserver decodes patches with sigs.k8s.io/json.
std::string GoValueString(const json& value);

}  // namespace kubeon::kubesim
