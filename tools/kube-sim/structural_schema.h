// A CRD's structural schema (openAPIV3Schema) applied to a custom resource
// as kube-apiserver does on create, update and patch: unknown fields are
// pruned, defaults applied, then the object validated.
//
// Pruning drops every field the schema does not declare (`properties`,
// or any key under `additionalProperties`), except below
// `x-kubernetes-preserve-unknown-fields: true` or an `x-kubernetes-embedded-
// resource`'s apiVersion/kind/metadata; `metadata` at the root is the API
// server's, never pruned here.  Null values of non-nullable fields are
// dropped too.
//
// Defaulting sets `default` on absent properties of objects that exist.
//
// Validation covers type (integer, number, string, boolean, object,
// array; `x-kubernetes-int-or-string`), nullable, enum, required, minimum /
// maximum (and exclusive*), minLength / maxLength, pattern (ECMAScript
// regex), minItems / maxItems, minProperties / maxProperties,
// `x-kubernetes-list-type: set` (duplicates) and format date-time.  Every
// problem is "<field path>: <what>" with the real server's wording, e.g.
//   spec.mode: Unsupported value: "Sometimes": supported values: "Proposal", "Approve", "Auto"
//   spec.timeSlicing.maxReplicas: Invalid value: 0: spec.timeSlicing.maxReplicas in body should be greater than or equal to 1
//   spec.kind: Required value
// `x-kubernetes-validations` (CEL) rules are not evaluated.
#pragma once

#include <string>
#include <vector>

#include "meta.h"

namespace kubeon::kubesim {

// Removes the fields `schema` does not declare from `value` (at `path`,
// "" for the root) and returns their paths ("spec.foo"), in document order.
// Fields `keep` (the stored object, or null) already has at the same path
// are kept and not reported.
std::vector<std::string> PruneUnknownFields(const json& schema, json& value, const json& keep = nullptr,
                                            const std::string& path = "");

// Applies the schema's defaults to `value`.
void ApplyDefaults(const json& schema, json& value);

// The problems of `value` against `schema`; empty when valid.
std::vector<std::string> ValidateAgainstSchema(const json& schema, const json& value, const std::string& path = "");

}  // namespace kubeon::kubesim
